// Assembling a trace file: runs copied in from the output, parts logs or other traces, then the header and the
// /summary and /curve_summary tables, written under a temporary name and renamed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "hdf5.hpp"
#include "parts_log.hpp"
#include "run_record.hpp"
#include "summary.hpp"

namespace glimpse {

// The root attributes of a trace file: which protocol wrote it and how its runs are to be summarised.
struct TraceHeader {
  std::string protocol_name, protocol_file, protocol_hash, protocol_text;
  std::string selection_metric, selection_goal, selection_per_seed;
  std::int64_t runs_total = 0;  // the protocol's whole run list, also in a shard's file
  std::string shard;            // "I/N" in a shard's file, else empty
  std::string created;          // kept from the file being replaced, else now

  static TraceHeader read(const std::filesystem::path& file);  // Error when it is not a glimpse trace
};

// Refuses (Error) to start writing `bytes` more to the folder of `output` when they cannot fit: the file system's
// free space for this user, and the process's file size limit (`ulimit -f`). `finished_runs` > 0 adds where they
// stay to the message.
void check_room(const std::filesystem::path& output, std::uintmax_t bytes, std::size_t finished_runs);
// The bytes the sources' runs take (whole files counted once).
std::uintmax_t bytes_of(const std::map<std::string, RunSource>& sources);

// The summary read_run_summary(with curves) reads back from the group a record is written as, built from the record
// itself: the writer keeps it without reading the run back (issue #57).
RunSummary summary_of_record(const RunRecord& record);

// An output being written under "<output>.tmp". Destroyed unfinished, it removes the temporary file.
class TraceAssembly {
 public:
  // `deflate_flags`: the per-round 0/1 columns of runs added from records are deflated (TraceStore::compact_rounds).
  explicit TraceAssembly(const std::filesystem::path& output, bool deflate_flags = false);
  ~TraceAssembly();
  TraceAssembly(const TraceAssembly&) = delete;
  TraceAssembly& operator=(const TraceAssembly&) = delete;

  // Writes runs/<id> from a run's record (as the store gets a run when it finishes, or decoded from a parts log) and
  // reads its summary and curves there, rather than from the whole output at the end.
  void add(const RunRecord& record);
  // Copies runs/<id> from another trace file, and reads its summary and curves there.
  void copy(const h5::Handle& from, const std::string& id);
  // Each run from where `sources` says: a parts log's record (added) or a trace file (copied).
  void copy(const std::map<std::string, RunSource>& sources);
  // The header and the tables; closes and renames.
  void finish(const TraceHeader& header);

 private:
  std::filesystem::path output_, temporary_;
  bool deflate_flags_ = false;
  h5::Handle file_;
  std::map<std::string, RunSummary> summaries_;
};

// Writes `output` (through a temporary file and a rename) from `header` and the runs `sources` names, with
// the /summary and /curve_summary tables.
void assemble_trace(const std::filesystem::path& output, const TraceHeader& header,
                    const std::map<std::string, RunSource>& sources);

}  // namespace glimpse
