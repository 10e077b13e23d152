// A protocol's datasets, loaded once and put through their transforms: shared by every run, or copied per seed
// from the first per-seed transform on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/dataset.hpp"
#include "glimpse/interfaces.hpp"
#include "protocol.hpp"

namespace glimpse {

// A protocol dataset, loaded and put through its seed-independent transforms once. When the source draws per
// seed (then every transform applies to each draw) or some transform is per seed, `materialize(seed)` makes the copy
// the runs with that seed see (the orchestrator builds each such copy on first use, shares it among that seed's runs
// and frees it after the last one).
struct PreparedDataset {
  std::shared_ptr<const Dataset> shared;  // with a per-seed source: an empty placeholder (its address keys copies)
  std::shared_ptr<const DataSource> seed_source;                  // a source drawing a dataset per seed, or null
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

// A dataset entry after its source and its shared transforms, as a PreparationCache keeps it.
struct PreparedEntry {
  Dataset data;            // after the shared transforms
  ProblemShape raw_shape;  // the source's dataset, before them: the transforms' parameters resolve against it
  std::size_t transforms_applied = 0;
};

// Keeps prepared datasets from one sweep to the next (the CLI's keeps them on disk: cli/prepared_cache.hpp).
// Asked before an entry that is not drawn per seed is prepared, and offered it after; without one, every sweep
// prepares its datasets afresh.
class PreparationCache {
 public:
  virtual ~PreparationCache() = default;
  // What the entry depends on, as text: its key (`fits_on_split`: fitted transforms learn per split).
  virtual std::string key(const DatasetUse& use, const ParamValues& source_values, const DataSource& source,
                          bool fits_on_split) const = 0;
  // The entry kept under `key`, or nothing.
  virtual std::optional<PreparedEntry> find(const std::string& key) = 0;
  // Offers an entry (PreparedEntry's parts) that took `seconds` to prepare. A failure to keep it is the cache's
  // to report, not to throw: the cache saves time, it is never needed.
  virtual void keep(const std::string& key, const Dataset& data, const ProblemShape& raw_shape,
                    std::size_t transforms_applied, double seconds) = 0;
};

std::vector<PreparedDataset> prepare_datasets(const Protocol& protocol, PreparationCache* cache = nullptr);

// A batch protocol's split rule for one dataset (its own labelled fraction, if it gives one) and the key of its
// stream for a seed: the same split for every run, and for the transforms fitted on its training part.
BatchSplit split_rule(const Protocol& protocol, const DatasetUse& use);
std::uint64_t split_key(std::uint64_t seed, const std::string& split_name);
}  // namespace glimpse
