// Prepared datasets cached on disk: a protocol dataset after its source and its shared transforms, kept as a
// dataset file under a key made of everything that produced it, so the next sweep over the same data maps the
// result instead of parsing and transforming again (a VW text file of fashion-MNIST: 0.8 s of parsing).
// Files: $GLIMPSE_DATA/prepared/KEY.h5 (dataset_cache_dir), at most GLIMPSE_PREPARED_CACHE_MB (default 4096) in
// all, least recently used out first. GLIMPSE_PREPARED_CACHE: auto (default: kept when preparing took at least
// 0.1 s), always, or off.
#pragma once

#include <optional>
#include <string>

#include "prepared_dataset.hpp"

namespace glimpse {

// The CLI's PreparationCache. Its key is what a prepared dataset depends on, as text: glimpse's version; the
// source plugin (its library file, revision, resolved parameters, every file a path parameter names and its
// DataSource::identity); each transform (library file, revision, declared defaults, parameters as written, files its
// path parameters name); whether fitted transforms learn per split.
// Files enter with their size and modification time, so changing one misses the cache. A source or transform that
// reads a file must name it in a path parameter (or a source in its identity) to be keyed by it (docs/datasets.md).
// An entry that does not read back whole is not found; one that cannot be written is a warning.
class DiskPreparationCache final : public PreparationCache {
 public:
  std::string key(const DatasetUse& use, const ParamValues& source_values, const DataSource& source,
                  bool fits_on_split) const override;
  std::optional<PreparedEntry> find(const std::string& key) override;
  void keep(const std::string& key, const Dataset& data, const ProblemShape& raw_shape, std::size_t transforms_applied,
            double seconds) override;
};

}  // namespace glimpse
