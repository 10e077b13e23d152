// The rows' order in a pass (stream_order.hpp).
#include "stream_order.hpp"

#include <numeric>
#include <utility>
#include <vector>

#include "glimpse/random.hpp"

namespace glimpse {

void fill_stream_order(std::span<std::int64_t> order, std::uint64_t order_key, std::int64_t pass, StreamOrder mode,
                       std::span<const std::int32_t> labels, std::int32_t num_classes) {
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (mode == StreamOrder::file || order.empty()) return;
  Rng rng(derive_key(order_key, static_cast<std::uint64_t>(pass)));
  if (mode == StreamOrder::with_replacement) {  // `order` may be longer or shorter than the rows
    for (auto& slot : order) slot = static_cast<std::int64_t>(rng.below(labels.size()));
    return;
  }
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  if (mode == StreamOrder::shuffle) return;
  // Class-wise modes: each class's rows in the shuffled order above, then arranged by class.
  std::vector<std::vector<std::int64_t>> by_class(static_cast<std::size_t>(num_classes));
  for (const std::int64_t row : order)
    by_class[static_cast<std::size_t>(labels[static_cast<std::size_t>(row)])].push_back(row);
  std::size_t position = 0;
  if (mode == StreamOrder::by_class) {
    for (const auto& rows : by_class)
      for (const std::int64_t row : rows) order[position++] = row;
  } else if (mode == StreamOrder::interleaved) {
    for (std::size_t depth = 0; position < order.size(); ++depth)
      for (const auto& rows : by_class)
        if (depth < rows.size()) order[position++] = rows[depth];
  } else {  // class_balanced
    std::vector<std::size_t> present;
    for (std::size_t c = 0; c < by_class.size(); ++c)
      if (!by_class[c].empty()) present.push_back(c);
    for (auto& slot : order) {
      const auto& rows = by_class[present[rng.below(present.size())]];
      slot = rows[rng.below(rows.size())];
    }
  }
}

}  // namespace glimpse
