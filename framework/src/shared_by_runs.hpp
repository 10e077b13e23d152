// What the runs of a sweep share and free together: a per-seed dataset copy, a batch split. Built by the first run
// that needs it, freed when the last run expected for it is done (orchestrator.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "prepared_dataset.hpp"

namespace glimpse {

// Something the runs sharing a key need (a per-seed dataset copy, a batch split): built on first use (one builder
// per key; other keys build concurrently), shared by those runs, freed once the last run expected for it is done.
// expect() is called for every pending run before any starts.
template <class Key, class T>
class SharedByRuns {
 public:
  void expect(const Key& key) { ++find(key).remaining; }
  template <class Build>
  std::shared_ptr<T> acquire(const Key& key, const Build& build) {
    Entry& entry = find(key);
    std::lock_guard lock(entry.mutex);
    if (!entry.value) entry.value = build();
    return entry.value;
  }
  void release(const Key& key) {
    Entry& entry = find(key);
    std::lock_guard lock(entry.mutex);
    if (--entry.remaining == 0) entry.value.reset();
  }
  void keep(const Key& key, std::shared_ptr<T> value) { find(key).value = std::move(value); }

 private:
  struct Entry {
    std::mutex mutex;
    std::shared_ptr<T> value;
    std::int64_t remaining = 0;
  };
  Entry& find(const Key& key) {
    std::lock_guard lock(mutex_);
    return entries_[key];  // std::map: entries never move
  }
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
};

// Per-seed dataset copies, keyed by the prepared dataset they come from (its shared base, whose address never
// changes), so training and test parts need no numbering of their own. Datasets without per-seed transforms
// are shared as they are.
class SeedCopies {
 public:
  void expect(const PreparedDataset& prepared, std::uint64_t seed) {
    if (prepared.per_seed()) copies_.expect(key(prepared, seed));
  }
  std::shared_ptr<const Dataset> acquire(const PreparedDataset& prepared, std::uint64_t seed) {
    if (!prepared.per_seed()) return prepared.shared;
    return copies_.acquire(key(prepared, seed), [&] { return prepared.materialize(seed); });
  }
  void release(const PreparedDataset& prepared, std::uint64_t seed) {
    if (prepared.per_seed()) copies_.release(key(prepared, seed));
  }
  void keep(const PreparedDataset& prepared, std::uint64_t seed, std::shared_ptr<const Dataset> data) {
    if (prepared.per_seed()) copies_.keep(key(prepared, seed), std::move(data));
  }

 private:
  using Key = std::pair<const Dataset*, std::uint64_t>;
  static Key key(const PreparedDataset& prepared, std::uint64_t seed) { return {prepared.shared.get(), seed}; }
  SharedByRuns<Key, const Dataset> copies_;
};

}  // namespace glimpse
