// TraceStore: each finished run logged at once (parts_log.hpp), the output assembled from the logs
// (trace_assembly.hpp); reading what a trace holds (also for glimpse merge, cli/merge_traces.cpp).
#include "trace_store.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "stream_keys.hpp"
#include "summary.hpp"
#include "trace_assembly.hpp"
#include "trace_schema.hpp"

namespace glimpse {
namespace fs = std::filesystem;

namespace {

std::string hash_text(std::uint64_t hash) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

// A run group's status attribute ("complete", "failed"), or "" when its write never finished.
std::string run_status(const h5::Handle& file, const std::string& id) {
  const std::string path = schema::run_group(id);
  if (!h5::exists(file, path)) return "";
  const h5::Handle group = h5::open_group(file, path);
  return h5::has_attribute(group, schema::run::status) ? h5::read_string_attribute(group, schema::run::status) : "";
}

}  // namespace

// The protocol's hash and the core's arithmetic revision: a trace made by a core that gave other numbers is not
// resumed.
std::string protocol_hash_text(const Protocol& protocol) {
  return hash_text(protocol.hash) + ".c" + std::to_string(core_arithmetic_revision);
}

TraceHeader trace_header_of(const Protocol& protocol, std::int64_t runs_total, const Shard& shard) {
  TraceHeader header;
  header.protocol_name = protocol.name;
  header.protocol_file = protocol.file;
  header.protocol_hash = protocol_hash_text(protocol);
  header.protocol_text = protocol.text;
  header.selection_metric = protocol.selection.metric;
  header.selection_goal = protocol.selection.maximize ? schema::selection::maximize : schema::selection::minimize;
  header.selection_per_seed =
      protocol.selection.per_seed ? schema::selection::per_seed_yes : schema::selection::per_seed_no;
  header.runs_total = runs_total;
  if (!shard.whole()) header.shard = shard.text();
  return header;
}

TraceContents read_trace_contents(const fs::path& output, const std::string& expected_hash, const std::string& advice) {
  TraceContents contents;
  const auto check_hash = [&](const h5::Handle& file, const std::string& where) {
    if (!h5::has_attribute(file, schema::root::protocol_hash) ||
        h5::read_string_attribute(file, schema::root::protocol_hash) != expected_hash)
      throw Error(where,
                  "was written by a different protocol (or a different version of it, or a core of another "
                  "arithmetic revision); " +
                      advice);
  };
  // Records run `id` of `file` under its status; a later file's complete run replaces an earlier failure.
  const auto take = [&](const h5::Handle& file, const RunSource& source, const std::string& id) {
    const std::string status = run_status(file, id);
    if (status == schema::status::complete) {
      contents.complete[id] = source;
      contents.failed.erase(id);
    } else if (status == schema::status::failed && !contents.complete.count(id)) {
      const h5::Handle group = h5::open_group(file, schema::run_group(id));
      contents.failed[id] = {source, h5::read_string_attribute(group, schema::run::error),
                             h5::read_int_attribute(group, schema::run::failed_round)};
    }
  };
  if (fs::exists(output)) {
    if (!h5::is_hdf5(output)) throw Error(output.string(), "exists but is not an HDF5 file; " + advice);
    const h5::Handle file = h5::open_file(output, false);
    check_hash(file, output.string());
    if (h5::exists(file, schema::root::runs))
      for (const auto& id : h5::children(h5::open_group(file, schema::root::runs))) take(file, {output}, id);
  }
  const fs::path parts(output.string() + ".parts");
  if (!fs::is_directory(parts)) return contents;
  std::vector<fs::path> logs;
  for (const auto& item : fs::directory_iterator(parts))
    if (item.path().extension() == log_extension) logs.push_back(item.path());
  std::sort(logs.begin(), logs.end());
  std::set<std::string> begun;  // in some process's markers (one log per process holds them, in order)
  for (const auto& log : logs) {
    bool first = true;
    std::set<std::string> begun_here;
    read_log(log, [&](char kind, const std::string& id, std::uint64_t offset, std::uint64_t size) {
      const RunSource source{log, offset, size};
      if (std::exchange(first, false)) {
        const std::vector<char> hash = kind == 'P' ? read_log_payload(source) : std::vector<char>();
        if (std::string(hash.begin(), hash.end()) != expected_hash + log_format_tag)
          throw Error(log.string(), "was written by a different protocol (or a different version of it); " + advice);
        return;
      }
      if (kind == 'B') begun_here.insert(id);
      if (kind == 'A') begun_here.erase(id);
      if (kind == 'W') {
        contents.complete[id] = source;
        contents.failed.erase(id);
      }
      if (kind != 'F' || contents.complete.count(id)) return;
      // A failed run's record is small: its error and round are read from it. An unreadable one counts as absent:
      // the run is redone.
      try {
        const RunRecord failed = decode_run_record(read_log_payload(source), log.string());
        contents.failed[id] = {source, failed.error, failed.failed_round};
      } catch (const Error&) {
      }
    });
    begun.merge(begun_here);
  }
  for (const auto& id : begun)
    if (!contents.complete.count(id) && !contents.failed.count(id)) contents.in_flight.insert(id);
  return contents;
}

namespace {
// A trace file can be written at `output`: it is not a folder, no file stands where one of its folders should be,
// and its folder exists (made here). Error naming the path otherwise.
void prepare_output_path(const fs::path& output) {
  std::error_code ec;
  if (fs::is_directory(output, ec))
    throw Error(output.string(), "is a folder; the output is a trace file, e.g. " + (output / "sweep.h5").string());
  for (fs::path folder = output.parent_path(); !folder.empty(); folder = folder.parent_path()) {
    if (fs::exists(folder, ec)) {
      if (!fs::is_directory(folder, ec))
        throw Error(folder.string(), "is a file, so the output " + output.string() +
                                         " cannot be written under it; expected a folder there");
      break;
    }
    if (folder == folder.parent_path()) break;
  }
  if (output.has_parent_path() && !fs::create_directories(output.parent_path(), ec) && ec)
    throw Error(output.parent_path().string(), "cannot create the output's folder: " + ec.message());
}

fs::path lock_path_of(const fs::path& output) {
  prepare_output_path(output);
  return output.string() + ".lock";
}
}  // namespace

OutputLock::OutputLock(const fs::path& output) : lock_(lock_path_of(output), FileLock::Mode::try_once) {
  if (!lock_.held())
    throw Error(output.string(), "another glimpse process is writing this output (it holds " + output.string() +
                                     ".lock); wait for it to finish, or choose another --output");
}

fs::path TraceStore::parts_folder() const { return fs::path(output_.string() + ".parts"); }

TraceStore::TraceStore(fs::path output, const Protocol& protocol, bool force, Shard shard)
    : output_(std::move(output)),
      lock_(std::in_place, output_),
      protocol_(protocol),
      shard_(shard),
      log_(parts_folder(), protocol_hash_text(protocol)) {
  // (The lock has made the output's folder.) An output a killed sweep was assembling is of no use.
  fs::remove(fs::path(output_.string() + ".tmp"));
  if (force) {
    fs::remove(output_);
    remove_parts_folder(parts_folder());
  }
  const TraceContents contents = read_trace_contents(output_, protocol_hash_text(protocol),
                                                     "pass --force to start afresh, or choose another --output");
  for (const auto& [id, source] : contents.complete) completed_.insert(id);
  in_flight_before_ = contents.in_flight;
  fs::create_directories(parts_folder());
  // Keep the logs holding runs (complete or failed); drop the rest (a dead sweep's records of runs begun only).
  std::set<fs::path> keep;
  for (const auto& [id, source] : contents.complete) keep.insert(source.file);
  for (const auto& [id, failure] : contents.failed) keep.insert(failure.source.file);
  for (const auto& item : fs::directory_iterator(parts_folder()))
    if (!keep.count(item.path())) fs::remove(item.path());
}

TraceStore::TraceStore(fs::path output, const Protocol& protocol, Helper)
    : output_(std::move(output)), protocol_(protocol), log_(parts_folder(), protocol_hash_text(protocol)) {}

TraceStore::~TraceStore() = default;

void TraceStore::begin(const std::string& id) {
  std::lock_guard lock(log_mutex_);
  log_.append('B', id, std::span<const char>());
}

void TraceStore::abandon(const std::string& id) {
  std::lock_guard lock(log_mutex_);
  log_.append('A', id, std::span<const char>());
}

RunSource TraceStore::log(const RunRecord& record) {
  const EncodedRunRecord encoded = encode_run_record(record);
  // A log of this process no other thread is appending to: several threads log at once.
  std::unique_ptr<PartsLog> log;
  {
    std::lock_guard lock(logs_mutex_);
    if (idle_logs_.empty()) {
      log = std::make_unique<PartsLog>(parts_folder(), protocol_hash_text(protocol_));
    } else {
      log = std::move(idle_logs_.back());
      idle_logs_.pop_back();
    }
  }
  const auto put_back = [&] {
    std::lock_guard lock(logs_mutex_);
    idle_logs_.push_back(std::move(log));
  };
  RunSource logged;
  try {
    logged = log->append(record.error.empty() ? 'W' : 'F', record.id, encoded.all);
  } catch (...) {
    put_back();
    try {
      abandon(record.id);  // not in flight any more: it finished, and its record could not be written
    } catch (const Error&) {
    }
    throw;
  }
  put_back();
  return logged;
}

void TraceStore::write(const RunRecord& record, std::optional<RunSource> logged) {
  if (!logged) logged = log(record);
  std::lock_guard hdf5(mutex_);  // the HDF5 library is not thread-safe
  if (record.error.empty()) completed_.insert(record.id);
  assemble_now(record, *logged);
}

// Writes a run just logged into the output being assembled, straight from its record: on the writer thread while the
// workers compute, instead of serially at the end. Only the owner of the output does this; it gives up (and leaves
// everything to finalize) when the room check or the writing fails.
void TraceStore::assemble_now(const RunRecord& record, const RunSource& logged) {
  if (!lock_ || gave_up_assembling_) return;
  try {
    check_room(output_, assembled_bytes_ + logged.size, 0);
    if (!assembly_) assembly_ = std::make_unique<TraceAssembly>(output_, deflate_flags_);
    assembly_->add(record);
    assembled_[record.id] = logged;
    assembled_bytes_ += logged.size;
  } catch (const Error&) {
    assembly_.reset();
    assembled_.clear();
    assembled_bytes_ = 0;
    gave_up_assembling_ = true;
  }
}

void TraceStore::finalize(std::int64_t total_runs) {
  std::scoped_lock lock(mutex_, log_mutex_, logs_mutex_);
  const TraceContents contents = read_trace_contents(output_, protocol_hash_text(protocol_), "");
  std::map<std::string, RunSource> sources = contents.complete;
  for (const auto& [id, failure] : contents.failed) sources.emplace(id, failure.source);
  // What assemble_now copied already is the logged record that wins.
  std::map<std::string, RunSource> remaining;
  for (const auto& [id, source] : sources) {
    const auto copied = assembled_.find(id);
    if (copied == assembled_.end() || copied->second.file != source.file || copied->second.offset != source.offset)
      remaining.emplace(id, source);
  }
  if (remaining.size() + assembled_.size() != sources.size()) {  // a copied run that lost to another record
    assembly_.reset();
    assembled_.clear();
    assembled_bytes_ = 0;
    remaining = sources;
  }
  TraceHeader header = trace_header_of(protocol_, total_runs, shard_);
  if (fs::exists(output_)) {
    const TraceHeader previous = TraceHeader::read(output_);
    header.created = previous.created;
    // Nothing new since the output was assembled (a rerun with every run done): it stays as it is.
    const bool all_in_output = std::all_of(sources.begin(), sources.end(), [&](const auto& entry) {
      return entry.second.size == 0 && entry.second.file == output_;
    });
    if (all_in_output && assembled_.empty() && previous.runs_total == header.runs_total &&
        previous.shard == header.shard) {
      close_logs();
      remove_parts_folder(parts_folder());
      return;
    }
  }
  try {
    // (Counting what is assembled already again: the file size limit needs it, the free space check is stricter.)
    check_room(output_, assembled_bytes_ + bytes_of(remaining), sources.size());
    if (!assembly_) assembly_ = std::make_unique<TraceAssembly>(output_, deflate_flags_);
    assembly_->copy(remaining);
    assembly_->finish(header);
  } catch (...) {
    assembly_.reset();
    assembled_.clear();
    throw;
  }
  assembly_.reset();
  assembled_.clear();
  close_logs();
  remove_parts_folder(parts_folder());
}

void TraceStore::close_logs() noexcept {
  log_.close();
  for (auto& log : idle_logs_) log->close();
}

}  // namespace glimpse
