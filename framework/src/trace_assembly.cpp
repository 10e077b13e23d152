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

h5::IntegerColumn encode_round_column(std::string name, const RoundColumn& c, h5::Deflate deflate) {
  switch (c.width()) {
    case 1:
      return c.is_signed() ? h5::encode_integers(std::move(name), c.values<std::int8_t>(), deflate)
                           : h5::encode_integers(std::move(name), c.values<std::uint8_t>(), deflate);
    case 2:
      return h5::encode_integers(std::move(name), c.values<std::int16_t>(), deflate);
    case 4:
      return h5::encode_integers(std::move(name), c.values<std::int32_t>(), deflate);
    default:
      return h5::encode_integers(std::move(name), c.values<std::int64_t>(), deflate);
  }
}

// A run's per-round columns, narrowed (and with `deflate_flags` the 0/1 ones deflated) as the file stores them.
std::vector<h5::IntegerColumn> encode_round_columns(const RunRecord& r, bool deflate_flags) {
  if (r.y.empty() || !r.error.empty()) return {};
  // Narrowest types; a one-valued column as its fill value (h5::encode_integers; issue #31).
  const h5::Deflate deflate = deflate_flags ? h5::Deflate::flags : h5::Deflate::never;
  std::vector<h5::IntegerColumn> columns;
  columns.push_back(encode_round_column(schema::rounds::row, r.row, deflate));
  columns.push_back(encode_round_column(schema::rounds::y, r.y, deflate));
  columns.push_back(encode_round_column(schema::rounds::predicted, r.predicted, deflate));
  columns.push_back(encode_round_column(schema::rounds::proposed, r.proposed, deflate));
  columns.push_back(encode_round_column(schema::rounds::correct, r.correct, deflate));
  columns.push_back(encode_round_column(schema::rounds::queried, r.queried, deflate));
  return columns;
}

void write_run_group(const h5::Handle& file, const RunRecord& r, const std::vector<h5::IntegerColumn>& round_columns) {
  const h5::Handle runs = h5::exists(file, schema::root::runs) ? h5::open_group(file, schema::root::runs)
                                                               : h5::create_group(file, schema::root::runs);
  const h5::Handle group = h5::create_group(runs, r.id);
  h5::write_attribute(group, schema::run::run_index, r.index);
  h5::write_attribute(group, schema::run::dataset, r.dataset);
  h5::write_attribute(group, schema::run::dataset_variant, r.dataset_variant);
  h5::write_attribute(group, schema::run::dataset_notes, r.dataset_notes);
  h5::write_attribute(group, schema::run::learner_revision, static_cast<std::int64_t>(r.learner_revision));
  h5::write_attribute(group, schema::run::learner, r.learner);
  h5::write_attribute(group, schema::run::label, r.label);
  h5::write_attribute(group, schema::run::learner_version, r.learner_version);
  h5::write_attribute(group, schema::run::params, r.params_json);
  h5::write_attribute(group, schema::run::seed, static_cast<std::int64_t>(r.seed));
  h5::write_attribute(group, schema::run::grid_point, r.grid_point);
  h5::write_attribute(group, schema::run::oracle, r.oracle);
  h5::write_attribute(group, schema::run::oracle_params, r.oracle_params);
  h5::write_attribute(group, schema::run::query_rule, r.query_rule);
  h5::write_attribute(group, schema::run::query_rule_params, r.query_rule_params);
  h5::write_attribute(group, schema::run::rounds, r.rounds);
  h5::write_attribute(group, schema::run::seconds, r.seconds);
  h5::write_attribute(group, schema::run::rounds_per_second, rounds_per_second(r.rounds, r.seconds));
  h5::write_attribute(group, schema::run::peak_rss_mb, r.peak_rss_mb);
  if (!r.error.empty()) {
    h5::write_attribute(group, schema::run::error, r.error);
    h5::write_attribute(group, schema::run::failed_round, r.failed_round);
    h5::write_attribute(group, schema::run::status, std::string(schema::status::failed));
    return;
  }
  if (!round_columns.empty()) {
    const h5::Handle rounds = h5::create_group(group, schema::run::rounds_group);
    for (const auto& column : round_columns) h5::write_column(rounds, column);
  }
  const h5::Handle curves = h5::create_group(group, schema::run::curves_group);
  for (const auto& c : r.curves) {
    const h5::Handle curve = h5::create_group(curves, c.name);
    h5::write_vector<std::int64_t>(curve, schema::curve::round, c.rounds);
    h5::write_vector<double>(curve, schema::curve::value, c.values);
  }
  if (!r.matrices.empty()) {
    const h5::Handle matrices = h5::create_group(group, schema::run::matrices_group);
    for (const auto& m : r.matrices) h5::write_matrix<double>(matrices, m.name, m.values, m.rows, m.cols);
  }
  const h5::Handle summary = h5::create_group(group, schema::run::summary_group);
  for (const auto& [name, value] : r.scalars) h5::write_attribute(summary, name, value);
  // Written last: a run whose status is "complete" has everything above.
  h5::write_attribute(group, schema::run::status, std::string(schema::status::complete));
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

TraceAssembly::TraceAssembly(const fs::path& output, bool deflate_flags)
    : output_(output), temporary_(output.string() + ".tmp"), deflate_flags_(deflate_flags) {
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

RunSummary summary_of_record(const RunRecord& r) {
  // As read_run_summary reads what write_run_group wrote: the same attributes, the summary group's attributes in
  // creation order, the curves in the order HDF5 lists a group's members (by name, byte by byte).
  RunSummary s;
  s.id = r.id;
  s.dataset = r.dataset;
  s.learner = r.learner;
  s.label = r.label;
  s.params = selection_params(r.params_json, r.dataset_variant, r.query_rule, r.query_rule_params);
  s.seed = static_cast<std::int64_t>(r.seed);
  s.grid_point = r.grid_point;
  s.rounds = r.rounds;
  s.seconds = r.seconds;
  s.peak_rss_mb = r.peak_rss_mb;
  if (!r.error.empty()) {
    s.status = schema::status::failed;
    s.error = r.error;
    s.failed_round = r.failed_round;
    return s;
  }
  s.status = schema::status::complete;
  s.metrics = r.scalars;
  s.curves = r.curves;
  std::sort(s.curves.begin(), s.curves.end(), [](const NamedCurve& a, const NamedCurve& b) { return a.name < b.name; });
  return s;
}

void TraceAssembly::add(const RunRecord& record) {
  write_run_group(file_, record, encode_round_columns(record, deflate_flags_));
  summaries_[record.id] = summary_of_record(record);
}

void TraceAssembly::copy(const std::map<std::string, RunSource>& sources) {
  fs::path open_path;  // the whole file `source` has open
  h5::Handle source;
  for (const auto& [id, where] : sources) {
    if (where.size > 0) {
      add(decode_run_record(read_log_payload(where), where.file.string()));
      continue;
    }
    if (where.file != open_path) {
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
