// Where finished runs go. Each finished run is written at once, as its record (run_record.hpp's encode_run_record), to
// an append-only log under "<output>.parts/" (logs of each writing process, one per thread appending at that moment;
// a record is whole or is the log's torn tail, which readers ignore); the output file is written from the records as
// they come and finished from the parts when the sweep ends or is interrupted. A killed sweep
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

#include "file_lock.hpp"
#include "parts_log.hpp"
#include "protocol.hpp"
#include "run_record.hpp"
#include "shard.hpp"
#include "trace_assembly.hpp"

namespace glimpse {

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

// The header of `protocol`'s trace (or of shard `shard` of it): `runs_total` runs in the whole protocol.
TraceHeader trace_header_of(const Protocol& protocol, std::int64_t runs_total, const Shard& shard);

// Holds "<output>.lock" (file_lock.hpp) while a process writes `output`, so a second process (a resubmitted array
// task, a second terminal) is refused instead of corrupting the parts.
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& output);

 private:
  FileLock lock_;
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
  // Logs one finished or failed run durably (which clears its marker) and returns where; safe to call from several
  // threads at once, each then appends to a log of its own (a sweep's workers log their runs themselves while its
  // writer thread is busy: run_writer.hpp).
  RunSource log(const RunRecord& record);
  // Logs the run unless `logged` says where it is already, then writes it into the output being assembled (the
  // HDF5 library's part, serial: a sweep calls this from its writer thread).
  void write(const RunRecord& record, std::optional<RunSource> logged = std::nullopt);

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
  // This process's markers (a run began, was abandoned) in the parts folder, in order in one log, appended under
  // log_mutex_ (not mutex_, the HDF5 library's, so that one run's marker goes down while another run is written).
  std::mutex log_mutex_;
  PartsLog log_;
  // Logs for finished runs, one taken by each thread while it appends (log()); created as more threads append at once.
  std::mutex logs_mutex_;
  std::vector<std::unique_ptr<PartsLog>> idle_logs_;
  void close_logs() noexcept;
  // The output being assembled while the sweep runs (under mutex_): the runs this process logged, copied in as they
  // finish; finalize adds the rest.
  std::unique_ptr<TraceAssembly> assembly_;
  std::map<std::string, RunSource> assembled_;
  std::uintmax_t assembled_bytes_ = 0;
  bool gave_up_assembling_ = false;
  void assemble_now(const RunRecord& record, const RunSource& logged);
};

}  // namespace glimpse
