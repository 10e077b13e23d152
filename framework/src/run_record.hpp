// What one run leaves behind, before it is written anywhere: the record the round loop and the batch fit fill and
// the trace store writes (docs/trace-schema.md names its fields in the file). A ground-level file: it includes no
// other file of the core (only the public named-results types), so the loops and the store can both use it without
// depending on each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/named_results.hpp"

namespace glimpse {

// One per-round column, held in the width its values' bound needs (labels 1..K take one byte while K < 128, rows
// 0..n-1 two bytes while n <= 32768), so that a cheap learner's loop writes 7 bytes a round instead of 22 and
// nothing is zero-filled first (issue #31). Little-endian, as the trace file stores it.
class RoundColumn {
 public:
  RoundColumn() = default;
  RoundColumn(const RoundColumn& other) { *this = other; }
  RoundColumn& operator=(const RoundColumn& other);
  RoundColumn(RoundColumn&&) noexcept = default;
  RoundColumn& operator=(RoundColumn&&) noexcept = default;

  // Room for `size` values in [-bound, bound] (signed) or in [0, bound] (unsigned, at most 255); contents undefined
  // until set.
  void allocate(std::int64_t size, std::int64_t bound, bool is_signed = true);
  void set(std::int64_t i, std::int64_t value) noexcept {
    std::byte* at = bytes_.get() + i * static_cast<std::int64_t>(width_);
    switch (width_) {
      case 1:
        *reinterpret_cast<std::uint8_t*>(at) = static_cast<std::uint8_t>(value);
        return;
      case 2:
        *reinterpret_cast<std::int16_t*>(at) = static_cast<std::int16_t>(value);
        return;
      case 4:
        *reinterpret_cast<std::int32_t*>(at) = static_cast<std::int32_t>(value);
        return;
      default:
        *reinterpret_cast<std::int64_t*>(at) = value;
    }
  }
  std::int64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t width() const noexcept { return width_; }
  bool is_signed() const noexcept { return is_signed_; }
  // The held bytes (size() * width()).
  std::byte* data() noexcept { return bytes_.get(); }
  const std::byte* data() const noexcept { return bytes_.get(); }
  // The values as their held type (T's size must be width()).
  template <class T>
  std::span<const T> values() const noexcept {
    return {reinterpret_cast<const T*>(bytes_.get()), static_cast<std::size_t>(size_)};
  }

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> bytes_;  // malloc'd: no zero-filling, and any integer type may live there
  std::int64_t size_ = 0;
  std::size_t width_ = 1;
  bool is_signed_ = true;
};

// Everything one finished (or failed) run leaves behind.
struct RunRecord {
  std::string id;
  std::int64_t index = 0;
  std::string dataset, dataset_variant, learner, label, learner_version, params_json, oracle, oracle_params, query_rule,
      query_rule_params;
  std::string dataset_notes;  // what the dataset's reader and transforms said about it (Dataset::notes), one a line
  std::uint32_t learner_revision = 0;  // the learner's arithmetic revision (PluginSpec::revision)
  std::uint64_t seed = 0;
  std::int64_t grid_point = 0;
  std::int64_t rounds = 0;
  double seconds = 0.0;
  // The process's peak resident memory when the run ended (a high-water mark shared by every run of the process,
  // so in a multi-threaded sweep it bounds what this run needed rather than measuring it alone).
  double peak_rss_mb = 0.0;
  // A failed run: what went wrong and in which round (0: before the first round or outside the round loop).
  // Such a run keeps only its identity and these; a rerun of the sweep retries it.
  std::string error;
  std::int64_t failed_round = 0;
  // Per-round fields (empty when the protocol keeps only curves); labels 1..K as in the data files.
  RoundColumn y, predicted, proposed;
  RoundColumn row;               // the dataset row (0-based) each round showed
  RoundColumn correct, queried;  // 0/1
  std::vector<NamedScalar> scalars;
  std::vector<NamedCurve> curves;
  std::vector<NamedMatrix> matrices;
};

// A run record as a parts log stores it (docs/trace-schema.md, "Parts of an unfinished sweep"): "GRUN", a format
// version, the fixed fields, the results, the per-round columns' widths and sizes, then the columns' bytes. No HDF5:
// any thread encodes and logs a record while the writer thread has the library (issue #57).
struct EncodedRunRecord {
  std::vector<char> head;                  // everything but the columns' bytes
  std::vector<std::span<const char>> all;  // head, then each column's bytes where the record holds them (no copy)
};
EncodedRunRecord encode_run_record(const RunRecord& record);
// The record `bytes` encode; Error naming `where` when they are not one (cut short, another format).
RunRecord decode_run_record(std::span<const char> bytes, const std::string& where);

}  // namespace glimpse
