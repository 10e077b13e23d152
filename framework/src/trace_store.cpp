// TraceStore: durable per-run parts, assembled into one HDF5 file.
#include "trace_store.hpp"

#include <chrono>
#include <ctime>
#include <map>

#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "summary.hpp"

#ifndef GLIMPSE_VERSION_STRING
#define GLIMPSE_VERSION_STRING "unknown"
#endif

namespace glimpse {
namespace fs = std::filesystem;

namespace {

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

void write_run_group(const h5::Handle& file, const RunRecord& r) {
  const h5::Handle runs = h5::exists(file, "runs") ? h5::open_group(file, "runs") : h5::create_group(file, "runs");
  const h5::Handle group = h5::create_group(runs, r.id);
  h5::write_attribute(group, "run_index", r.index);
  h5::write_attribute(group, "dataset", r.dataset);
  h5::write_attribute(group, "dataset_variant", r.dataset_variant);
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
  if (!r.y.empty()) {
    const h5::Handle rounds = h5::create_group(group, "rounds");
    h5::write_vector<std::int64_t>(rounds, "row", r.row);
    h5::write_vector<std::int32_t>(rounds, "y", r.y);
    h5::write_vector<std::int32_t>(rounds, "predicted", r.predicted);
    h5::write_vector<std::int32_t>(rounds, "proposed", r.proposed);
    h5::write_vector<std::uint8_t>(rounds, "correct", r.correct);
    h5::write_vector<std::uint8_t>(rounds, "queried", r.queried);
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

bool run_is_complete(const h5::Handle& file, const std::string& id) {
  const std::string path = "runs/" + id;
  if (!h5::exists(file, path)) return false;
  const h5::Handle group = h5::open_group(file, path);
  return h5::has_attribute(group, "status") && h5::read_string_attribute(group, "status") == "complete";
}

}  // namespace

fs::path TraceStore::parts_folder() const { return fs::path(output_.string() + ".parts"); }

TraceStore::TraceStore(fs::path output, const Protocol& protocol, bool force)
    : output_(std::move(output)), protocol_(protocol) {
  const std::string expected_hash = hash_text(protocol.hash);
  if (force) {
    fs::remove(output_);
    fs::remove_all(parts_folder());
  }
  if (output_.has_parent_path()) fs::create_directories(output_.parent_path());
  const std::string mismatch =
      "was written by a different protocol (or a different version of it); pass --force "
      "to start afresh, or choose another --output";
  if (fs::exists(output_)) {
    if (!h5::is_hdf5(output_))
      throw Error(output_.string(), "exists but is not an HDF5 file; remove it or pass --force");
    const h5::Handle file = h5::open_file(output_, false);
    if (!h5::has_attribute(file, "protocol_hash") || h5::read_string_attribute(file, "protocol_hash") != expected_hash)
      throw Error(output_.string(), mismatch);
    if (h5::exists(file, "runs"))
      for (const auto& id : h5::children(h5::open_group(file, "runs")))
        if (run_is_complete(file, id)) completed_.insert(id);
  }
  fs::create_directories(parts_folder());
  for (const auto& item : fs::directory_iterator(parts_folder())) {
    const fs::path path = item.path();
    const std::string name = path.filename().string();
    bool keep = false;
    if (name.front() != '.' && path.extension() == ".h5" && h5::is_hdf5(path)) {
      try {
        const h5::Handle file = h5::open_file(path, false);
        if (h5::read_string_attribute(file, "protocol_hash") != expected_hash)
          throw Error(parts_folder().string(), mismatch);
        keep = run_is_complete(file, path.stem().string());
      } catch (const Error& e) {
        if (std::string(e.what()).find(mismatch) != std::string::npos) throw;
      }
    }
    if (keep)
      completed_.insert(path.stem().string());
    else
      fs::remove(path);  // an unfinished write from an interrupted sweep
  }
}

void TraceStore::write(const RunRecord& record) {
  std::lock_guard lock(mutex_);
  const fs::path temporary = parts_folder() / ("." + record.id + ".h5.tmp");
  {
    const h5::Handle file = h5::create_file(temporary);
    h5::write_attribute(file, "protocol_hash", hash_text(protocol_.hash));
    write_run_group(file, record);
  }
  fs::rename(temporary, parts_folder() / (record.id + ".h5"));
  completed_.insert(record.id);
}

void TraceStore::finalize(std::int64_t total_runs) {
  std::lock_guard lock(mutex_);
  const fs::path temporary(output_.string() + ".tmp");
  std::string created = now_iso8601();
  std::map<std::string, fs::path> sources;  // run id -> file holding it
  if (fs::exists(output_)) {
    const h5::Handle old = h5::open_file(output_, false);
    if (h5::has_attribute(old, "created")) created = h5::read_string_attribute(old, "created");
    if (h5::exists(old, "runs"))
      for (const auto& id : h5::children(h5::open_group(old, "runs")))
        if (run_is_complete(old, id)) sources.emplace(id, output_);
  }
  for (const auto& item : fs::directory_iterator(parts_folder())) {
    const fs::path path = item.path();
    if (path.extension() == ".h5" && path.filename().string().front() != '.')
      sources.emplace(path.stem().string(), path);
  }
  {
    const h5::Handle file = h5::create_file(temporary);
    h5::write_attribute(file, "schema_version", std::string(trace_schema_version));
    h5::write_attribute(file, "glimpse_version", std::string(GLIMPSE_VERSION_STRING));
    h5::write_attribute(file, "created", created);
    h5::write_attribute(file, "updated", now_iso8601());
    h5::write_attribute(file, "protocol_name", protocol_.name);
    h5::write_attribute(file, "protocol_file", protocol_.file);
    h5::write_attribute(file, "protocol_hash", hash_text(protocol_.hash));
    h5::write_attribute(file, "selection_metric", protocol_.selection.metric);
    h5::write_attribute(file, "selection_goal", std::string(protocol_.selection.maximize ? "max" : "min"));
    h5::write_attribute(file, "selection_per_seed", std::string(protocol_.selection.per_seed ? "true" : "false"));
    h5::write_attribute(file, "runs_total", total_runs);
    h5::write_attribute(file, "runs_complete", static_cast<std::int64_t>(sources.size()));
    h5::write_text(file, "protocol", protocol_.text);
    h5::create_group(file, "runs");
    fs::path open_path;
    h5::Handle source;
    for (const auto& [id, path] : sources) {
      if (path != open_path) {
        source = h5::open_file(path, false);
        open_path = path;
      }
      h5::copy_object(source, "runs/" + id, file, "runs/" + id);
    }
    source.close();
    const auto summaries = read_run_summaries(file);
    write_summary_table(file, summaries);
    write_curve_summary(file, summaries, protocol_.selection.metric, protocol_.selection.maximize);
  }
  fs::rename(temporary, output_);
  fs::remove_all(parts_folder());
}

}  // namespace glimpse
