// TraceStore: durable per-run parts, assembled into one HDF5 file.
#include "trace_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <utility>

#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "summary.hpp"

#ifndef GLIMPSE_VERSION_STRING
#define GLIMPSE_VERSION_STRING "unknown"
#endif

namespace glimpse {
namespace fs = std::filesystem;

namespace {

// A parts log: records one after another, each a LogHeader, the run id, then the payload. The first record, 'P', has
// the protocol's hash as its payload (and no id); then 'B' a run began, 'A' it was abandoned (interrupted: nothing
// kept), 'W' it completed and 'F' it failed, each of these two with the run's HDF5 file image as payload (the
// protocol's hash and runs/<id>), so that readers know a run's status without opening its image. A record goes down
// in one write(); one cut short by a kill is the log's last, and a failed write is cut off again (ftruncate), so a
// log is whole records and at most a torn tail, which readers ignore.
struct LogHeader {
  char magic[4] = {'G', 'L', 'O', 'G'};
  char kind = 0;
  char unused[3] = {};
  std::uint32_t id_size = 0;
  std::uint32_t unused_too = 0;
  std::uint64_t payload_size = 0;
};
static_assert(sizeof(LogHeader) == 24 && std::endian::native == std::endian::little);
constexpr const char* log_extension = ".log";

// Calls `take(kind, id, payload_offset, payload_size)` for each whole record of the log at `path`, in order.
template <class Take>
void read_log(const fs::path& path, Take take) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path.string(), std::string("cannot open the parts log: ") + std::strerror(errno));
  struct stat info {};
  const auto size = ::fstat(fd, &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
  std::uint64_t at = 0;
  LogHeader header;
  std::string id;
  while (at + sizeof header <= size && ::pread(fd, &header, sizeof header, static_cast<off_t>(at)) == sizeof header &&
         std::memcmp(header.magic, "GLOG", 4) == 0 && header.id_size <= 4096) {
    const std::uint64_t payload = at + sizeof header + header.id_size;
    if (payload + header.payload_size > size) break;  // the torn tail
    id.resize(header.id_size);
    if (::pread(fd, id.data(), id.size(), static_cast<off_t>(at + sizeof header)) != static_cast<ssize_t>(id.size()))
      break;
    take(header.kind, id, payload, header.payload_size);
    at = payload + header.payload_size;
  }
  ::close(fd);
}

// The run image at `source`, read from its log.
std::vector<char> read_log_image(const RunSource& source) {
  std::vector<char> image(source.size);
  const int fd = ::open(source.file.c_str(), O_RDONLY | O_CLOEXEC);
  const bool read = fd >= 0 && ::pread(fd, image.data(), image.size(), static_cast<off_t>(source.offset)) ==
                                   static_cast<ssize_t>(image.size());
  if (fd >= 0) ::close(fd);
  if (!read) throw Error(source.file.string(), "cannot read a run's image at byte " + std::to_string(source.offset));
  return image;
}

// Refuses to start writing `bytes` more to the folder of `output` when they cannot fit: the file system's free
// space for this user, and the process's file size limit (`ulimit -f`). Checked before HDF5 writes, since HDF5
// 1.10 can crash (in H5Ocopy) after a failed write instead of reporting it.
void check_room(const fs::path& output, std::uintmax_t bytes, std::size_t finished_runs) {
  const auto size_text = [](double b) {
    char text[32];
    if (b < 1e6)
      std::snprintf(text, sizeof text, "%.0f kB", b / 1e3);
    else
      std::snprintf(text, sizeof text, b < 1e9 ? "%.1f MB" : "%.2f GB", b < 1e9 ? b / 1e6 : b / 1e9);
    return std::string(text);
  };
  const std::string keep = finished_runs == 0
                               ? ""
                               : "; the " + std::to_string(finished_runs) + " finished runs stay in " +
                                     output.string() + ".parts, and rerunning the same command writes the file";
  // Room for the new file beside the old one, with a margin for HDF5's own structures.
  const auto needed = static_cast<double>(bytes) * 1.05 + 65536;
  struct statvfs room {};
  const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
  if (::statvfs(folder.c_str(), &room) == 0) {
    const double free = static_cast<double>(room.f_bavail) * static_cast<double>(room.f_frsize);
    if (free < needed)
      throw Error(output.string(), "not enough disk space to write the output: it needs about " + size_text(needed) +
                                       ", " + folder.string() + " has " + size_text(free) + " free" + keep);
  }
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<double>(limit.rlim_cur) < needed)
    throw Error(output.string(), "the output needs about " + size_text(needed) +
                                     ", more than this process may write to one file (" +
                                     size_text(static_cast<double>(limit.rlim_cur)) + ", ulimit -f)" + keep);
}

std::string hash_text(std::uint64_t hash) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

std::string now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

h5::IntegerColumn encode_round_column(std::string name, const RoundColumn& c, h5::Deflate deflate) {
  switch (c.width()) {
    case 1:
      return c.is_signed() ? h5::encode_integers(std::move(name), c.values<std::int8_t>(), deflate)
                           : h5::encode_integers(std::move(name), c.values<std::uint8_t>(), deflate);
    case 2: return h5::encode_integers(std::move(name), c.values<std::int16_t>(), deflate);
    case 4: return h5::encode_integers(std::move(name), c.values<std::int32_t>(), deflate);
    default: return h5::encode_integers(std::move(name), c.values<std::int64_t>(), deflate);
  }
}

// A run's per-round columns, narrowed (and with `deflate_flags` the 0/1 ones deflated) by the run's own thread
// before it takes the HDF5 lock.
std::vector<h5::IntegerColumn> encode_round_columns(const RunRecord& r, bool deflate_flags) {
  if (r.y.empty() || !r.error.empty()) return {};
  // Narrowest types; a one-valued column as its fill value (h5::encode_integers; issue #31).
  const h5::Deflate deflate = deflate_flags ? h5::Deflate::flags : h5::Deflate::never;
  std::vector<h5::IntegerColumn> columns;
  columns.push_back(encode_round_column("row", r.row, deflate));
  columns.push_back(encode_round_column("y", r.y, deflate));
  columns.push_back(encode_round_column("predicted", r.predicted, deflate));
  columns.push_back(encode_round_column("proposed", r.proposed, deflate));
  columns.push_back(encode_round_column("correct", r.correct, deflate));
  columns.push_back(encode_round_column("queried", r.queried, deflate));
  return columns;
}

void write_run_group(const h5::Handle& file, const RunRecord& r, const std::vector<h5::IntegerColumn>& round_columns) {
  const h5::Handle runs = h5::exists(file, "runs") ? h5::open_group(file, "runs") : h5::create_group(file, "runs");
  const h5::Handle group = h5::create_group(runs, r.id);
  h5::write_attribute(group, "run_index", r.index);
  h5::write_attribute(group, "dataset", r.dataset);
  h5::write_attribute(group, "dataset_variant", r.dataset_variant);
  h5::write_attribute(group, "dataset_notes", r.dataset_notes);
  h5::write_attribute(group, "learner_revision", static_cast<std::int64_t>(r.learner_revision));
  h5::write_attribute(group, "learner", r.learner);
  h5::write_attribute(group, "label", r.label);
  h5::write_attribute(group, "learner_version", r.learner_version);
  h5::write_attribute(group, "params", r.params_json);
  h5::write_attribute(group, "seed", static_cast<std::int64_t>(r.seed));
  h5::write_attribute(group, "grid_point", r.grid_point);
  h5::write_attribute(group, "oracle", r.oracle);
  h5::write_attribute(group, "oracle_params", r.oracle_params);
  h5::write_attribute(group, "query_rule", r.query_rule);
  h5::write_attribute(group, "query_rule_params", r.query_rule_params);
  h5::write_attribute(group, "rounds", r.rounds);
  h5::write_attribute(group, "seconds", r.seconds);
  h5::write_attribute(group, "rounds_per_second", rounds_per_second(r.rounds, r.seconds));
  h5::write_attribute(group, "peak_rss_mb", r.peak_rss_mb);
  if (!r.error.empty()) {
    h5::write_attribute(group, "error", r.error);
    h5::write_attribute(group, "failed_round", r.failed_round);
    h5::write_attribute(group, "status", std::string("failed"));
    return;
  }
  if (!round_columns.empty()) {
    const h5::Handle rounds = h5::create_group(group, "rounds");
    for (const auto& column : round_columns) h5::write_column(rounds, column);
  }
  const h5::Handle curves = h5::create_group(group, "curves");
  for (const auto& c : r.curves) {
    const h5::Handle curve = h5::create_group(curves, c.name);
    h5::write_vector<std::int64_t>(curve, "round", c.rounds);
    h5::write_vector<double>(curve, "value", c.values);
  }
  if (!r.matrices.empty()) {
    const h5::Handle matrices = h5::create_group(group, "matrices");
    for (const auto& m : r.matrices)
      h5::write_matrix(matrices, m.name, std::span<const double>(m.values), m.rows, m.cols);
  }
  const h5::Handle summary = h5::create_group(group, "summary");
  for (const auto& [name, value] : r.scalars) h5::write_attribute(summary, name, value);
  // Written last: a run whose status is "complete" has everything above.
  h5::write_attribute(group, "status", std::string("complete"));
}

// A run group's status attribute ("complete", "failed"), or "" when its write never finished.
std::string run_status(const h5::Handle& file, const std::string& id) {
  const std::string path = "runs/" + id;
  if (!h5::exists(file, path)) return "";
  const h5::Handle group = h5::open_group(file, path);
  return h5::has_attribute(group, "status") ? h5::read_string_attribute(group, "status") : "";
}

}  // namespace

RoundColumn& RoundColumn::operator=(const RoundColumn& other) {
  if (this == &other) return *this;
  allocate(0, 0);
  size_ = other.size_;
  width_ = other.width_;
  is_signed_ = other.is_signed_;
  if (size_ > 0) {
    const auto bytes = static_cast<std::size_t>(size_) * width_;
    bytes_.reset(static_cast<std::byte*>(std::malloc(bytes)));
    if (!bytes_) throw std::bad_alloc();
    std::memcpy(bytes_.get(), other.bytes_.get(), bytes);
  }
  return *this;
}

void RoundColumn::allocate(std::int64_t size, std::int64_t bound, bool is_signed) {
  is_signed_ = is_signed;
  width_ = !is_signed || bound <= INT8_MAX ? 1 : bound <= INT16_MAX ? 2 : bound <= INT32_MAX ? 4 : 8;
  size_ = size;
  bytes_.reset(size > 0 ? static_cast<std::byte*>(std::malloc(static_cast<std::size_t>(size) * width_)) : nullptr);
  if (size > 0 && !bytes_) throw std::bad_alloc();
}

std::string protocol_hash_text(const Protocol& protocol) { return hash_text(protocol.hash); }

TraceHeader TraceHeader::of(const Protocol& protocol, std::int64_t runs_total, const Shard& shard) {
  TraceHeader header;
  header.protocol_name = protocol.name;
  header.protocol_file = protocol.file;
  header.protocol_hash = protocol_hash_text(protocol);
  header.protocol_text = protocol.text;
  header.selection_metric = protocol.selection.metric;
  header.selection_goal = protocol.selection.maximize ? "max" : "min";
  header.selection_per_seed = protocol.selection.per_seed ? "true" : "false";
  header.runs_total = runs_total;
  if (!shard.whole()) header.shard = shard.text();
  return header;
}

TraceHeader TraceHeader::read(const fs::path& path) {
  if (!fs::exists(path)) throw Error(path.string(), "no such file");
  if (!h5::is_hdf5(path)) throw Error(path.string(), "is not an HDF5 file");
  const h5::Handle file = h5::open_file(path, false);
  if (!h5::has_attribute(file, "protocol_hash") || !h5::has_attribute(file, "runs_total"))
    throw Error(path.string(), "is not a glimpse trace file (no protocol_hash or runs_total attribute)");
  const auto text = [&](const char* name) {
    return h5::has_attribute(file, name) ? h5::read_string_attribute(file, name) : std::string();
  };
  TraceHeader header;
  header.protocol_name = text("protocol_name");
  header.protocol_file = text("protocol_file");
  header.protocol_hash = text("protocol_hash");
  header.protocol_text = h5::exists(file, "protocol") ? h5::read_text(file, "protocol") : "";
  header.selection_metric = text("selection_metric");
  header.selection_goal = text("selection_goal");
  header.selection_per_seed = text("selection_per_seed");
  header.runs_total = h5::read_int_attribute(file, "runs_total");
  header.shard = text("shard");
  header.created = text("created");
  return header;
}

TraceContents read_trace_contents(const fs::path& output, const std::string& expected_hash, const std::string& advice) {
  TraceContents contents;
  const auto check_hash = [&](const h5::Handle& file, const std::string& where) {
    if (!h5::has_attribute(file, "protocol_hash") || h5::read_string_attribute(file, "protocol_hash") != expected_hash)
      throw Error(where, "was written by a different protocol (or a different version of it); " + advice);
  };
  // Records run `id` of `file` under its status; a later file's complete run replaces an earlier failure.
  const auto take = [&](const h5::Handle& file, const RunSource& source, const std::string& id) {
    const std::string status = run_status(file, id);
    if (status == "complete") {
      contents.complete[id] = source;
      contents.failed.erase(id);
    } else if (status == "failed" && !contents.complete.count(id)) {
      const h5::Handle group = h5::open_group(file, "runs/" + id);
      contents.failed[id] = {source, h5::read_string_attribute(group, "error"),
                             h5::read_int_attribute(group, "failed_round")};
    }
  };
  if (fs::exists(output)) {
    if (!h5::is_hdf5(output)) throw Error(output.string(), "exists but is not an HDF5 file; " + advice);
    const h5::Handle file = h5::open_file(output, false);
    check_hash(file, output.string());
    if (h5::exists(file, "runs"))
      for (const auto& id : h5::children(h5::open_group(file, "runs"))) take(file, {output}, id);
  }
  const fs::path parts(output.string() + ".parts");
  if (!fs::is_directory(parts)) return contents;
  std::vector<fs::path> logs;
  for (const auto& item : fs::directory_iterator(parts))
    if (item.path().extension() == log_extension) logs.push_back(item.path());
  std::sort(logs.begin(), logs.end());
  std::set<std::string> begun;
  for (const auto& log : logs) {
    bool first = true;
    read_log(log, [&](char kind, const std::string& id, std::uint64_t offset, std::uint64_t size) {
      const RunSource source{log, offset, size};
      if (std::exchange(first, false)) {
        const std::vector<char> hash = kind == 'P' ? read_log_image(source) : std::vector<char>();
        if (std::string(hash.begin(), hash.end()) != expected_hash)
          throw Error(log.string(), "was written by a different protocol (or a different version of it); " + advice);
        return;
      }
      if (kind == 'B') begun.insert(id);
      if (kind == 'A' || kind == 'W' || kind == 'F') begun.erase(id);
      if (kind == 'W') {
        contents.complete[id] = source;
        contents.failed.erase(id);
      }
      if (kind != 'F' || contents.complete.count(id)) return;
      try {  // a failed run's image is small: its error and round are read from it
        take(h5::open_file_image(read_log_image(source)), source, id);
      } catch (const Error&) {
        // An unreadable image counts as absent: the run is redone.
      }
    });
  }
  for (const auto& id : begun)
    if (!contents.complete.count(id) && !contents.failed.count(id)) contents.in_flight.insert(id);
  return contents;
}

// An output being written under a temporary name: runs copied in, then the header and the tables, then renamed.
// Destroyed unfinished, it removes the temporary file.
class TraceAssembly {
 public:
  explicit TraceAssembly(const fs::path& output) : output_(output), temporary_(output.string() + ".tmp") {
    file_ = h5::create_file(temporary_);
    h5::create_group(file_, "runs");
  }
  ~TraceAssembly() {
    if (!file_) return;
    file_.close();
    std::error_code ignored;
    fs::remove(temporary_, ignored);
  }
  TraceAssembly(const TraceAssembly&) = delete;
  TraceAssembly& operator=(const TraceAssembly&) = delete;

  // Copies runs/<id> and reads its summary and curves there, from the source (on the run's thread when assemble_now
  // calls it), rather than from the whole output at the end.
  void copy(const h5::Handle& from, const std::string& id) {
    const std::string path = "runs/" + id;
    h5::copy_object(from, path, file_, path);
    summaries_[id] = read_run_summary(h5::open_group(from, path), id, true);
  }
  void copy(const std::map<std::string, RunSource>& sources) {
    fs::path open_path;  // the whole file `source` has open
    h5::Handle source;
    for (const auto& [id, where] : sources) {
      if (where.size > 0) {
        source = h5::open_file_image(read_log_image(where));
        open_path.clear();
      } else if (where.file != open_path) {
        source = h5::open_file(where.file, false);
        open_path = where.file;
      }
      copy(source, id);
    }
  }
  void finish(const TraceHeader& header) {
    h5::write_attribute(file_, "schema_version", std::string(trace_schema_version));
    h5::write_attribute(file_, "glimpse_version", std::string(GLIMPSE_VERSION_STRING));
    h5::write_attribute(file_, "created", header.created.empty() ? now_iso8601() : header.created);
    h5::write_attribute(file_, "updated", now_iso8601());
    h5::write_attribute(file_, "protocol_name", header.protocol_name);
    h5::write_attribute(file_, "protocol_file", header.protocol_file);
    h5::write_attribute(file_, "protocol_hash", header.protocol_hash);
    h5::write_attribute(file_, "selection_metric", header.selection_metric);
    h5::write_attribute(file_, "selection_goal", header.selection_goal);
    h5::write_attribute(file_, "selection_per_seed", header.selection_per_seed);
    h5::write_attribute(file_, "runs_total", header.runs_total);
    if (!header.shard.empty()) h5::write_attribute(file_, "shard", header.shard);
    h5::write_text(file_, "protocol", header.protocol_text);
    std::vector<RunSummary> summaries;  // in run id order, as read_run_summaries gives them
    for (auto& [id, summary] : summaries_) summaries.push_back(std::move(summary));
    const auto complete =
        std::count_if(summaries.begin(), summaries.end(), [](const RunSummary& r) { return r.status == "complete"; });
    h5::write_attribute(file_, "runs_complete", static_cast<std::int64_t>(complete));
    h5::write_attribute(file_, "runs_failed", static_cast<std::int64_t>(summaries.size() - complete));
    write_summary_table(file_, summaries);
    const bool maximize = header.selection_goal == "max";
    write_curve_summary(file_, summaries, header.selection_metric, maximize);
    h5::close_file(file_);
    fs::rename(temporary_, output_);
  }

 private:
  fs::path output_, temporary_;
  h5::Handle file_;
  std::map<std::string, RunSummary> summaries_;
};

namespace {
std::uintmax_t bytes_of(const std::map<std::string, RunSource>& sources) {
  std::set<fs::path> whole_files;
  std::uintmax_t bytes = 0;
  for (const auto& [id, source] : sources) {
    bytes += source.size;
    if (source.size == 0) whole_files.insert(source.file);
  }
  for (const auto& path : whole_files) bytes += fs::file_size(path);
  return bytes;
}
}  // namespace

void assemble_trace(const fs::path& output, const TraceHeader& header, const std::map<std::string, RunSource>& sources) {
  check_room(output, bytes_of(sources), sources.size());
  TraceAssembly assembly(output);
  assembly.copy(sources);
  assembly.finish(header);
}

OutputLock::OutputLock(const fs::path& output) : path_(output.string() + ".lock") {
  if (output.has_parent_path()) fs::create_directories(output.parent_path());
  // Lock the file, then check it is still the one at the path: a holder that was just finishing may have
  // unlinked the file we opened, and a lock on an unlinked file excludes no one.
  for (;;) {
    fd_ = ::open(path_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error(path_.string(), std::string("cannot create the output's lock file: ") + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw Error(output.string(), "another glimpse process is writing this output (it holds " + path_.string() +
                                       "); wait for it to finish, or choose another --output");
    }
    struct stat held {
    }, current{};
    if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &current) == 0 && held.st_ino == current.st_ino &&
        held.st_dev == current.st_dev)
      return;
    ::close(fd_);
  }
}

OutputLock::~OutputLock() {
  ::unlink(path_.c_str());
  ::close(fd_);
}

fs::path TraceStore::parts_folder() const { return fs::path(output_.string() + ".parts"); }

TraceStore::TraceStore(fs::path output, const Protocol& protocol, bool force, Shard shard)
    : output_(std::move(output)), lock_(std::in_place, output_), protocol_(protocol), shard_(shard) {
  // (The lock has made the output's folder.) An output a killed sweep was assembling is of no use.
  fs::remove(fs::path(output_.string() + ".tmp"));
  if (force) {
    fs::remove(output_);
    fs::remove_all(parts_folder());
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
    : output_(std::move(output)), protocol_(protocol) {}

TraceStore::~TraceStore() {
  if (log_fd_ >= 0) ::close(log_fd_);
}

RunSource TraceStore::append(char kind, const std::string& id, std::span<const char> payload) {
  if (log_fd_ < 0) {
    // A log of this process's own, never one an earlier sweep left (whose tail may be torn).
    for (int k = 0; log_fd_ < 0; ++k) {
      log_path_ = parts_folder() / (std::to_string(::getpid()) + "-" + std::to_string(k) + log_extension);
      log_fd_ = ::open(log_path_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
      if (log_fd_ < 0 && errno != EEXIST)
        throw Error(log_path_.string(), std::string("cannot create the sweep's parts log: ") + std::strerror(errno));
    }
    log_size_ = 0;
    const std::string hash = protocol_hash_text(protocol_);
    append('P', "", hash);
  }
  LogHeader header;
  header.kind = kind;
  header.id_size = static_cast<std::uint32_t>(id.size());
  header.payload_size = payload.size();
  iovec pieces[3] = {{&header, sizeof header},
                     {const_cast<char*>(id.data()), id.size()},
                     {const_cast<char*>(payload.data()), payload.size()}};
  const std::uint64_t total = sizeof header + id.size() + payload.size();
  std::uint64_t written = 0;
  while (written < total) {
    // A short write (a signal, a full disk) continues where it stopped: skip what went down already.
    iovec rest[3];
    int count = 0;
    std::uint64_t skip = written;
    for (const auto& piece : pieces) {
      if (skip >= piece.iov_len) {
        skip -= piece.iov_len;
        continue;
      }
      rest[count++] = {static_cast<char*>(piece.iov_base) + skip, piece.iov_len - skip};
      skip = 0;
    }
    const ssize_t n = ::writev(log_fd_, rest, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      if (::ftruncate(log_fd_, static_cast<off_t>(log_size_)) != 0) {
        // The torn record stays; readers stop there, and so must this log: later records go to a new one.
        ::close(log_fd_);
        log_fd_ = -1;
      }
      throw Error(log_path_.string(), std::string("cannot write a finished run's record: ") + std::strerror(error));
    }
    written += static_cast<std::uint64_t>(n);
  }
  const RunSource payload_place{log_path_, log_size_ + sizeof header + id.size(), payload.size()};
  log_size_ += total;
  return payload_place;
}

void TraceStore::begin(const std::string& id) {
  std::lock_guard lock(log_mutex_);
  append('B', id, {});
}

void TraceStore::abandon(const std::string& id) {
  std::lock_guard lock(log_mutex_);
  append('A', id, {});
}

void TraceStore::write(const RunRecord& record) {
  const std::vector<h5::IntegerColumn> round_columns = encode_round_columns(record, deflate_flags_);
  std::unique_lock hdf5(mutex_);  // the HDF5 library is not thread-safe; encoding the columns is
  h5::Handle file = h5::create_memory_file();
  // Whatever happens below, the image is closed under the HDF5 lock.
  const auto close_file = [&](h5::Handle& f) noexcept {
    if (!hdf5.owns_lock()) hdf5.lock();
    f.close();
  };
  std::vector<char> image;
  RunSource logged;
  try {
    h5::write_attribute(file, "protocol_hash", protocol_hash_text(protocol_));
    write_run_group(file, record, round_columns);
    image = h5::file_image(file);
    hdf5.unlock();
    std::lock_guard log(log_mutex_);
    try {
      logged = append(record.error.empty() ? 'W' : 'F', record.id, image);
    } catch (...) {
      try {
        append('A', record.id, {});  // not in flight any more: it finished, and its record could not be written
      } catch (const Error&) {
      }
      throw;
    }
  } catch (...) {
    close_file(file);
    throw;
  }
  hdf5.lock();
  if (record.error.empty()) completed_.insert(record.id);
  assemble_now(file, record.id, logged);
  close_file(file);
}

// Copies a run just logged into the output being assembled, from its image still open: on a run's thread while the
// others compute, instead of serially at the end. Only the owner of the output does this; it gives up (and leaves
// everything to finalize) when the room check or the copy fails.
void TraceStore::assemble_now(const h5::Handle& image, const std::string& id, const RunSource& logged) {
  if (!lock_ || gave_up_assembling_) return;
  try {
    check_room(output_, assembled_bytes_ + logged.size, 0);
    if (!assembly_) assembly_ = std::make_unique<TraceAssembly>(output_);
    assembly_->copy(image, id);
    assembled_[id] = logged;
    assembled_bytes_ += logged.size;
  } catch (const Error&) {
    assembly_.reset();
    assembled_.clear();
    assembled_bytes_ = 0;
    gave_up_assembling_ = true;
  }
}

void TraceStore::finalize(std::int64_t total_runs) {
  std::scoped_lock lock(mutex_, log_mutex_);
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
  TraceHeader header = TraceHeader::of(protocol_, total_runs, shard_);
  if (fs::exists(output_)) {
    const TraceHeader previous = TraceHeader::read(output_);
    header.created = previous.created;
    // Nothing new since the output was assembled (a rerun with every run done): it stays as it is.
    const bool all_in_output = std::all_of(sources.begin(), sources.end(), [&](const auto& entry) {
      return entry.second.size == 0 && entry.second.file == output_;
    });
    if (all_in_output && assembled_.empty() && previous.runs_total == header.runs_total &&
        previous.shard == header.shard) {
      if (log_fd_ >= 0) ::close(log_fd_);
      log_fd_ = -1;
      fs::remove_all(parts_folder());
      return;
    }
  }
  try {
    // (Counting what is assembled already again: the file size limit needs it, the free space check is stricter.)
    check_room(output_, assembled_bytes_ + bytes_of(remaining), sources.size());
    if (!assembly_) assembly_ = std::make_unique<TraceAssembly>(output_);
    assembly_->copy(remaining);
    assembly_->finish(header);
  } catch (...) {
    assembly_.reset();
    assembled_.clear();
    throw;
  }
  assembly_.reset();
  assembled_.clear();
  if (log_fd_ >= 0) ::close(log_fd_);
  log_fd_ = -1;
  fs::remove_all(parts_folder());
}

MergeReport merge_traces(const fs::path& output, const std::vector<fs::path>& inputs) {
  // The header comes from the first input that is an assembled file; a shard killed before assembling its
  // file has only its parts folder, whose runs still count.
  const auto assembled = std::find_if(inputs.begin(), inputs.end(), [](const fs::path& p) { return fs::exists(p); });
  if (assembled == inputs.end())
    throw Error(inputs.empty() ? std::string("glimpse merge") : inputs.front().string(),
                inputs.empty() ? "expected at least one trace file to merge"
                               : "no such file (nor is any other input): nothing to take the protocol from");
  const TraceHeader first = TraceHeader::read(*assembled);
  std::map<std::string, RunSource> sources;
  std::map<std::string, std::vector<RunSource>> holders;  // complete runs: every input holding one
  std::map<std::string, RunSource> failed;
  for (const auto& input : inputs) {
    if (fs::exists(input)) {
      const TraceHeader header = TraceHeader::read(input);
      if (header.protocol_hash != first.protocol_hash)
        throw Error(input.string(), "comes from protocol '" + header.protocol_name + "' (hash " + header.protocol_hash +
                                        "), but " + assembled->string() + " from protocol '" + first.protocol_name +
                                        "' (hash " + first.protocol_hash +
                                        "): glimpse merge combines traces of one protocol only");
    } else if (!fs::is_directory(input.string() + ".parts")) {
      throw Error(input.string(), "no such file, nor a parts folder of an unfinished sweep beside it");
    }
    const TraceContents contents =
        read_trace_contents(input, first.protocol_hash, "glimpse merge combines traces of one protocol only");
    for (const auto& [id, source] : contents.complete) holders[id].push_back(source);
    for (const auto& [id, failure] : contents.failed) failed.emplace(id, failure.source);
  }
  MergeReport report;
  report.runs_total = first.runs_total;
  for (const auto& [id, places] : holders) {
    sources.emplace(id, places.front());
    if (places.size() == 1) continue;
    std::vector<fs::path> files;
    for (const auto& place : places) files.push_back(place.file);
    report.duplicates.emplace_back(id, files);
  }
  for (const auto& [id, source] : failed)
    if (sources.emplace(id, source).second) ++report.failed;
  report.complete = static_cast<std::int64_t>(holders.size());
  for (std::int64_t index = 0; index < report.runs_total; ++index) {
    const std::string id = run_id(index, report.runs_total);
    if (!sources.count(id)) report.missing.push_back(id);
  }
  TraceHeader header = first;
  header.shard.clear();
  header.created.clear();
  assemble_trace(output, header, sources);
  return report;
}

}  // namespace glimpse
