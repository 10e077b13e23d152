// A protocol's datasets, loaded once and put through their transforms: shared by every run, or copied per seed
// from the first per-seed transform on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batch.hpp"
#include "glimpse/dataset.hpp"
#include "glimpse/interfaces.hpp"
#include "protocol.hpp"

namespace glimpse {

// A protocol dataset, loaded and put through its seed-independent transforms once. When the source draws per
// seed (then every transform applies to each draw) or some transform is per seed, `materialize(seed)` makes the copy the runs with that seed see (the orchestrator builds each such
// copy on first use, shares it among that seed's runs and frees it after the last one).
struct PreparedDataset {
  std::shared_ptr<const Dataset> shared;  // with a per-seed source: an empty placeholder (its address keys copies)
  std::shared_ptr<const DataSource> seed_source;  // a source drawing a dataset per seed, or null
  std::vector<std::shared_ptr<const Transform>> seed_transforms;  // from the first per-seed transform on
  std::size_t first_seed_transform = 0;                           // its position in the protocol's list
  std::string name, where;
  StreamOrder order = StreamOrder::shuffle;
  std::shared_ptr<const PreparedDataset> test;  // the held-out part, when the protocol names one
  // Batch protocols fitting transforms on training rows: how each seed's split is drawn (its rule and stream
  // name), so that a transform with fitted statistics learns only from that seed's training part.
  std::optional<BatchSplit> fit_split;
  std::string split_name;

  bool per_seed() const noexcept { return seed_source || !seed_transforms.empty(); }
  std::shared_ptr<const Dataset> materialize(std::uint64_t seed) const;
};
std::vector<PreparedDataset> prepare_datasets(const Protocol& protocol);

// A batch protocol's split rule for one dataset (its own labelled fraction, if it gives one) and the key of its
// stream for a seed: the same split for every run, and for the transforms fitted on its training part.
BatchSplit split_rule(const Protocol& protocol, const DatasetUse& use);
std::uint64_t split_key(std::uint64_t seed, const std::string& split_name);
}  // namespace glimpse
