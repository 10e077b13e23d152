// Where finished runs go. Each finished run is written at once, as its own small HDF5 file image, to an append-only
// log under "<output>.parts/" (one log per writing process; a record is whole or is the log's torn tail, which
// readers ignore); the output file is assembled from the parts when the sweep ends or is interrupted. A killed sweep
// thus keeps every finished run readable, and rerunning the protocol resumes from what is there. A run about to start
// leaves a record that it began, so a run that crashes the process is known on the rerun. The log's layout is in
// docs/trace-schema.md ("Parts of an unfinished sweep").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parts_log.hpp"
#include "protocol.hpp"
#include "shard.hpp"

namespace glimpse {

inline constexpr const char* trace_schema_version = "1.7.0";

struct NamedCurve {
  std::string name;
  std::vector<std::int64_t> rounds;
  std::vector<double> values;
};

struct NamedMatrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
};

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
      case 1: *reinterpret_cast<std::uint8_t*>(at) = static_cast<std::uint8_t>(value); return;
      case 2: *reinterpret_cast<std::int16_t*>(at) = static_cast<std::int16_t>(value); return;
      case 4: *reinterpret_cast<std::int32_t*>(at) = static_cast<std::int32_t>(value); return;
      default: *reinterpret_cast<std::int64_t*>(at) = value;
    }
  }
  std::int64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t width() const noexcept { return width_; }
  bool is_signed() const noexcept { return is_signed_; }
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
  std::string dataset_notes;       // what the dataset's reader and transforms said about it (Dataset::notes), one a line
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
  RoundColumn row;  // the dataset row (0-based) each round showed
  RoundColumn correct, queried;  // 0/1
  std::vector<std::pair<std::string, double>> scalars;
  std::vector<NamedCurve> curves;
  std::vector<NamedMatrix> matrices;
};

// The root attributes of a trace file: which protocol wrote it and how its runs are to be summarised.
struct TraceHeader {
  std::string protocol_name, protocol_file, protocol_hash, protocol_text;
  std::string selection_metric, selection_goal, selection_per_seed;
  std::int64_t runs_total = 0;  // the protocol's whole run list, also in a shard's file
  std::string shard;            // "I/N" in a shard's file, else empty
  std::string created;          // kept from the file being replaced, else now

  static TraceHeader of(const Protocol& protocol, std::int64_t runs_total, const Shard& shard);
  static TraceHeader read(const std::filesystem::path& file);  // Error when it is not a glimpse trace
};

// The text form of a protocol's hash, as trace files store it, with the core's arithmetic revision (stream_keys.hpp).
std::string protocol_hash_text(const Protocol& protocol);

// What a trace holds: its assembled file plus the parts folder a running or killed sweep leaves beside it.
struct TraceContents {
  std::map<std::string, RunSource> complete;  // run id -> where it is
  struct Failure {
    RunSource source;
    std::string error;
    std::int64_t round = 0;
  };
  std::map<std::string, Failure> failed;  // not also complete
  std::set<std::string> in_flight;        // started but neither written nor abandoned: that sweep died
};
// Reads `output` and the logs in "<output>.parts/" (either may be absent). Every file and run image found must carry
// `expected_hash`, else Error naming it, "was written by a different protocol", and `advice`. A log's torn tail is
// ignored.
TraceContents read_trace_contents(const std::filesystem::path& output, const std::string& expected_hash,
                                  const std::string& advice);

// Writes `output` (through a temporary file and a rename) from `header` and the runs `sources` names, with
// the /summary and /curve_summary tables.
void assemble_trace(const std::filesystem::path& output, const TraceHeader& header,
                    const std::map<std::string, RunSource>& sources);

class TraceAssembly;
namespace h5 {
class Handle;
}

// Holds "<output>.lock" (flock) while a process writes `output`, so a second process (a resubmitted array
// task, a second terminal) is refused instead of corrupting the parts. The kernel drops the lock when its
// holder dies, so a killed sweep never leaves a stale one.
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& output);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

class TraceStore {
 public:
  // Prepares `output` for `protocol`. Without `force`, an existing output or parts folder must come from
  // the same protocol (same hash), else Error; their complete runs are kept. With `force`, both are removed.
  TraceStore(std::filesystem::path output, const Protocol& protocol, bool force, Shard shard = {});
  // A helper process's view of a store another process owns (see RunDispatcher): it writes parts only.
  struct Helper {};
  TraceStore(std::filesystem::path output, const Protocol& protocol, Helper);
  ~TraceStore();
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  const std::set<std::string>& completed() const noexcept { return completed_; }
  // Runs an earlier sweep of this output started and never finished: it was killed, or one of them crashed it.
  const std::set<std::string>& in_flight_before() const noexcept { return in_flight_before_; }
  const std::filesystem::path& output() const noexcept { return output_; }
  std::filesystem::path parts_folder() const;

  // Whether the per-round 0/1 columns are deflated (where a sample of them shrinks to a quarter): smaller files,
  // slower cheap sweeps (issue #31: on 200 runs at 2-5M rounds/s, 134.5 instead of 155.6 MB for 1.11x instead of
  // 1.06x the time without per-round traces). Off by default.
  void compact_rounds(bool deflate_flags) noexcept { deflate_flags_ = deflate_flags; }
  // Marks a run as started (a record in the log), so that if the process dies the rerun can name it.
  void begin(const std::string& id);
  // The run stopped unfinished (interrupted); it leaves nothing.
  void abandon(const std::string& id);
  // Writes one finished or failed run durably and clears its marker; safe to call from several threads (a sweep
  // calls it from its writer thread: run_writer.hpp).
  void write(const RunRecord& record);

  // Assembles the output file from the previous output and the parts (a part replaces the previous
  // output's run of the same id), and removes the parts. `total_runs` is the size of the protocol's run list.
  void finalize(std::int64_t total_runs);

 private:
  std::filesystem::path output_;
  std::optional<OutputLock> lock_;
  const Protocol& protocol_;
  Shard shard_;
  std::set<std::string> completed_, in_flight_before_;
  bool deflate_flags_ = false;
  std::mutex mutex_;
  // This process's log in the parts folder; appended under log_mutex_ (not mutex_, the HDF5 library's, so that one
  // run's record goes down while another run's image is built).
  std::mutex log_mutex_;
  PartsLog log_;
  // The output being assembled while the sweep runs (under mutex_): the runs this process logged, copied in as they
  // finish; finalize adds the rest.
  std::unique_ptr<TraceAssembly> assembly_;
  std::map<std::string, RunSource> assembled_;
  std::uintmax_t assembled_bytes_ = 0;
  bool gave_up_assembling_ = false;
  void assemble_now(const h5::Handle& image, const std::string& id, const RunSource& logged);
};

}  // namespace glimpse
