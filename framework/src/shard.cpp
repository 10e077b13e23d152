// Deterministic sharding of a protocol's runs.
#include "shard.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "glimpse/error.hpp"

namespace glimpse {

Shard parse_shard(const std::string& text, const std::string& where) {
  const auto slash = text.find('/');
  Shard shard;
  const auto parse = [&](std::string_view part, std::int32_t& value) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  const std::string_view all(text);
  if (slash == std::string::npos || !parse(all.substr(0, slash), shard.index) ||
      !parse(all.substr(slash + 1), shard.count) || shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw Error(where, "expected I/N with 0 <= I < N (e.g. 0/4 for the first of four shards), got '" + text + "'");
  return shard;
}

std::vector<std::int32_t> assign_shards(std::span<const double> costs, std::int32_t count) {
  std::vector<std::size_t> by_cost(costs.size());
  std::iota(by_cost.begin(), by_cost.end(), std::size_t{0});
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(count), 0.0);
  std::vector<std::int32_t> shard_of(costs.size(), 0);
  for (const std::size_t run : by_cost) {
    const auto lightest = std::min_element(load.begin(), load.end()) - load.begin();
    shard_of[run] = static_cast<std::int32_t>(lightest);
    load[static_cast<std::size_t>(lightest)] += costs[run];
  }
  return shard_of;
}

std::filesystem::path shard_output(const std::filesystem::path& output, const Shard& shard) {
  if (shard.whole()) return output;
  std::filesystem::path result = output;
  result.replace_filename(output.stem().string() + ".shard-" + std::to_string(shard.index) + "-of-" +
                          std::to_string(shard.count) + output.extension().string());
  return result;
}

}  // namespace glimpse
