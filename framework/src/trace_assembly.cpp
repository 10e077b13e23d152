// Assembling a trace file (see trace_assembly.hpp).
#include "trace_assembly.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <set>

#include "glimpse/error.hpp"
#include "trace_schema.hpp"

#ifndef GLIMPSE_VERSION_STRING
#define GLIMPSE_VERSION_STRING "unknown"
#endif

namespace glimpse {
namespace fs = std::filesystem;

namespace {
std::string now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace

// Checked before HDF5 writes, since HDF5 1.10 can crash (in H5Ocopy) after a failed write instead of reporting it.
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

TraceAssembly::TraceAssembly(const fs::path& output) : output_(output), temporary_(output.string() + ".tmp") {
  file_ = h5::create_file(temporary_);
  h5::create_group(file_, schema::root::runs);
}

TraceAssembly::~TraceAssembly() {
  if (!file_) return;
  file_.close();
  std::error_code ignored;
  fs::remove(temporary_, ignored);
}

void TraceAssembly::copy(const h5::Handle& from, const std::string& id) {
  const std::string path = schema::run_group(id);
  h5::copy_object(from, path, file_, path);
  summaries_[id] = read_run_summary(h5::open_group(from, path), id, true);
}

void TraceAssembly::copy(const std::map<std::string, RunSource>& sources) {
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

TraceHeader TraceHeader::read(const fs::path& path) {
  if (!fs::exists(path)) throw Error(path.string(), "no such file");
  if (!h5::is_hdf5(path)) throw Error(path.string(), "is not an HDF5 file");
  const h5::Handle file = h5::open_file(path, false);
  if (!h5::has_attribute(file, schema::root::protocol_hash) || !h5::has_attribute(file, schema::root::runs_total))
    throw Error(path.string(), "is not a glimpse trace file (no protocol_hash or runs_total attribute)");
  const auto text = [&](const char* name) {
    return h5::has_attribute(file, name) ? h5::read_string_attribute(file, name) : std::string();
  };
  TraceHeader header;
  header.protocol_name = text(schema::root::protocol_name);
  header.protocol_file = text(schema::root::protocol_file);
  header.protocol_hash = text(schema::root::protocol_hash);
  header.protocol_text = h5::exists(file, schema::root::protocol) ? h5::read_text(file, schema::root::protocol) : "";
  header.selection_metric = text(schema::root::selection_metric);
  header.selection_goal = text(schema::root::selection_goal);
  header.selection_per_seed = text(schema::root::selection_per_seed);
  header.runs_total = h5::read_int_attribute(file, schema::root::runs_total);
  header.shard = text(schema::root::shard);
  header.created = text(schema::root::created);
  return header;
}

void TraceAssembly::finish(const TraceHeader& header) {
  h5::write_attribute(file_, schema::root::schema_version, std::string(schema::version));
  h5::write_attribute(file_, schema::root::glimpse_version, std::string(GLIMPSE_VERSION_STRING));
  h5::write_attribute(file_, schema::root::created, header.created.empty() ? now_iso8601() : header.created);
  h5::write_attribute(file_, schema::root::updated, now_iso8601());
  h5::write_attribute(file_, schema::root::protocol_name, header.protocol_name);
  h5::write_attribute(file_, schema::root::protocol_file, header.protocol_file);
  h5::write_attribute(file_, schema::root::protocol_hash, header.protocol_hash);
  h5::write_attribute(file_, schema::root::selection_metric, header.selection_metric);
  h5::write_attribute(file_, schema::root::selection_goal, header.selection_goal);
  h5::write_attribute(file_, schema::root::selection_per_seed, header.selection_per_seed);
  h5::write_attribute(file_, schema::root::runs_total, header.runs_total);
  if (!header.shard.empty()) h5::write_attribute(file_, schema::root::shard, header.shard);
  h5::write_text(file_, schema::root::protocol, header.protocol_text);
  std::vector<RunSummary> summaries;  // in run id order, as read_run_summaries gives them
  for (auto& [id, summary] : summaries_) summaries.push_back(std::move(summary));
  const auto complete = std::count_if(summaries.begin(), summaries.end(),
                                      [](const RunSummary& r) { return r.status == schema::status::complete; });
  h5::write_attribute(file_, schema::root::runs_complete, static_cast<std::int64_t>(complete));
  h5::write_attribute(file_, schema::root::runs_failed, static_cast<std::int64_t>(summaries.size() - complete));
  write_summary_table(file_, summaries);
  write_curve_summary(file_, summaries, header.selection_metric, header.selection_goal == schema::selection::maximize,
                      header.selection_per_seed == schema::selection::per_seed_yes);
  h5::close_file(file_);
  fs::rename(temporary_, output_);
}

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

void assemble_trace(const fs::path& output, const TraceHeader& header,
                    const std::map<std::string, RunSource>& sources) {
  check_room(output, bytes_of(sources), sources.size());
  TraceAssembly assembly(output);
  assembly.copy(sources);
  assembly.finish(header);
}

}  // namespace glimpse
