// Reading a trace back for display: the file, its runs, the report's views of the grid points, its tables.
#include "trace_reading.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "glimpse/error.hpp"
#include "hdf5_checks.hpp"
#include "trace_schema.hpp"

namespace glimpse {

h5::Handle open_trace_file(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    // A sweep killed while it ran (or while it assembled the file) leaves its finished runs in the parts folder.
    if (std::filesystem::exists(path.string() + ".parts"))
      throw Error(path.string(),
                  "no such file yet: the sweep writing it was interrupted, and its finished runs are in " +
                      path.string() + ".parts; rerun the same 'glimpse run' to finish and assemble it");
    throw Error(path.string(), "no such file");
  }
  if (!h5::is_hdf5(path)) throw Error(path.string(), "not an HDF5 file");
  h5::Handle file = h5::open_file(path, false);
  if (!h5::has_attribute(file, schema::root::schema_version))
    throw Error(path.string(), "not a glimpse trace file (no schema_version)");
  return file;
}

SelectionRule read_selection(const h5::Handle& file) {
  SelectionRule rule;
  rule.metric = h5::read_string_attribute(file, schema::root::selection_metric);
  rule.maximize = h5::read_string_attribute(file, schema::root::selection_goal) == schema::selection::maximize;
  rule.per_seed =  // (files before schema 1.2 have no such attribute)
      h5::has_attribute(file, schema::root::selection_per_seed) &&
      h5::read_string_attribute(file, schema::root::selection_per_seed) == "true";
  return rule;
}

std::vector<RunSummary> read_run_summaries(const h5::Handle& file) {
  std::vector<RunSummary> runs;
  if (!h5::exists(file, schema::root::runs)) return runs;
  const h5::Handle group = h5::open_group(file, schema::root::runs);
  for (const auto& id : h5::children(group)) runs.push_back(read_run_summary(h5::open_group(group, id), id));
  return runs;
}

std::vector<RunSummary> read_summary_table(const h5::Handle& file) {
  if (!h5::exists(file, schema::root::summary)) return read_run_summaries(file);
  const auto columns = h5::read_table(file, schema::root::summary);
  const auto column = [&](const std::string& name) -> const h5::TableColumn* {
    for (const auto& c : columns)
      if (c.name == name) return &c;
    return nullptr;
  };
  const auto* run = column(schema::table::run);
  if (!run) throw Error("/summary", "no run column: not a glimpse summary table");
  std::vector<RunSummary> runs(run->texts.size());
  const auto* const identity = std::begin(schema::summary_identity_columns);
  const auto* const identity_end = std::end(schema::summary_identity_columns);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RunSummary& r = runs[i];
    r.id = run->texts[i];
    if (const auto* c = column(schema::run::dataset)) r.dataset = c->texts[i];
    if (const auto* c = column(schema::run::learner)) r.learner = c->texts[i];
    // Files before schema 1.1 have no label.
    r.label = column(schema::run::label) ? column(schema::run::label)->texts[i] : r.learner;
    if (const auto* c = column(schema::run::params)) r.params = c->texts[i];
    if (const auto* c = column(schema::run::status)) r.status = c->texts[i];
    if (const auto* c = column(schema::run::seed)) r.seed = c->integers[i];
    if (const auto* c = column(schema::run::grid_point)) r.grid_point = c->integers[i];
    if (const auto* c = column(schema::run::rounds)) r.rounds = c->integers[i];
    if (const auto* c = column(schema::run::seconds)) r.seconds = c->reals[i];
    if (const auto* c = column(schema::run::peak_rss_mb)) r.peak_rss_mb = c->reals[i];
    for (const auto& c : columns)  // a metric's column is NaN where the run lacks it
      if (c.type == h5::TableColumn::Type::real && !std::isnan(c.reals[i]) &&
          std::find(identity, identity_end, c.name) == identity_end)
        r.metrics.push_back({c.name, c.reals[i]});
  }
  return runs;
}

std::string trace_digest(const h5::Handle& file) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix_bytes = [&](const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  };
  const auto mix_text = [&](const std::string& text) { mix_bytes(text.data(), text.size() + 1); };
  const auto mix_column = [&](const h5::Handle& group, const std::string& name) {
    const auto column = h5::read_column(group, name);
    mix_text(name);
    for (const std::int64_t v : column.integers) mix_bytes(&v, sizeof v);
    for (const double v : column.reals) mix_bytes(&v, sizeof v);
  };
  if (!h5::exists(file, schema::root::runs)) return "0000000000000000";
  const h5::Handle runs = h5::open_group(file, schema::root::runs);
  for (const auto& id : h5::children(runs)) {
    const h5::Handle run = h5::open_group(runs, id);
    mix_text(id);
    if (h5::exists(run, schema::run::rounds_group)) {
      const h5::Handle rounds = h5::open_group(run, schema::run::rounds_group);
      for (const auto& name : h5::children(rounds)) mix_column(rounds, name);
    }
    if (h5::exists(run, schema::run::curves_group)) {
      const h5::Handle curves = h5::open_group(run, schema::run::curves_group);
      for (const auto& name : h5::children(curves)) {
        const h5::Handle curve = h5::open_group(curves, name);
        mix_text(name);
        for (const auto& part : h5::children(curve)) mix_column(curve, part);
      }
    }
    if (h5::exists(run, schema::run::summary_group)) {
      const h5::Handle summary = h5::open_group(run, schema::run::summary_group);
      for (const auto& name : h5::attribute_names(summary)) {
        const double v = h5::read_double_attribute(summary, name);
        mix_text(name);
        mix_bytes(&v, sizeof v);
      }
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::vector<SelectedRuns> select_runs(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                      bool maximize, bool every_grid_point, bool per_seed) {
  if (!every_grid_point) return choose_grid_points(runs, selection_metric, maximize, per_seed);
  std::vector<SelectedRuns> selected;
  for (const auto& g : group_by_grid_point(runs))
    for (const auto& [params, members] : g.points) selected.push_back({g.dataset, g.learner, params, members});
  return selected;
}

}  // namespace glimpse

namespace glimpse::h5 {
using detail::check;
using detail::check_in;
using detail::check_status;
using detail::string_type;

TableColumn read_table_column(const Handle& parent, const std::string& table, const std::string& column,
                              TableColumn::Type type) {
  const Handle dataset(
      check_in(H5Dopen2(parent.id(), table.c_str(), H5P_DEFAULT), parent.id(), "opening table '" + table + "'"));
  const Handle space(check(H5Dget_space(dataset.id()), "reading the size of table '" + table + "'"));
  const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.id()));
  // A compound memory type holding just this member: HDF5 reads the matching field of every row.
  const Handle text_type = string_type();
  const std::size_t size = type == TableColumn::Type::text ? sizeof(char*) : 8;
  const Handle memory_type(check(H5Tcreate(H5T_COMPOUND, size), "creating a table type"));
  const hid_t member = type == TableColumn::Type::text      ? text_type.id()
                       : type == TableColumn::Type::integer ? H5T_NATIVE_INT64
                                                            : H5T_NATIVE_DOUBLE;
  check_status(H5Tinsert(memory_type.id(), column.c_str(), 0, member), "adding table column '" + column + "'");
  TableColumn result{type, column, {}, {}, {}};
  if (rows == 0) return result;
  std::vector<char*> texts(type == TableColumn::Type::text ? rows : 0, nullptr);  // HDF5 allocates each string
  result.integers.resize(type == TableColumn::Type::integer ? rows : 0);
  result.reals.resize(type == TableColumn::Type::real ? rows : 0);
  void* const buffer = type == TableColumn::Type::text      ? static_cast<void*>(texts.data())
                       : type == TableColumn::Type::integer ? static_cast<void*>(result.integers.data())
                                                            : static_cast<void*>(result.reals.data());
  check_status(H5Dread(dataset.id(), memory_type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer),
               "reading column '" + column + "' of table '" + table + "'");
  for (const char* text : texts) result.texts.emplace_back(text ? text : "");
  if (!texts.empty()) H5Dvlen_reclaim(memory_type.id(), space.id(), H5P_DEFAULT, texts.data());
  return result;
}

namespace {
// The table column type that holds an HDF5 type class; nullopt for classes no table of ours uses.
std::optional<TableColumn::Type> column_type(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_STRING:
      return TableColumn::Type::text;
    case H5T_INTEGER:
      return TableColumn::Type::integer;
    case H5T_FLOAT:
      return TableColumn::Type::real;
    default:
      return std::nullopt;
  }
}
}  // namespace

std::vector<TableColumn> read_table(const Handle& parent, const std::string& table) {
  const Handle dataset(
      check_in(H5Dopen2(parent.id(), table.c_str(), H5P_DEFAULT), parent.id(), "opening table '" + table + "'"));
  const Handle type(check(H5Dget_type(dataset.id()), "reading the type of table '" + table + "'"));
  if (H5Tget_class(type.id()) != H5T_COMPOUND) throw Error("HDF5: '" + table + "' is not a table");
  std::vector<TableColumn> columns;
  const int members = H5Tget_nmembers(type.id());
  for (int i = 0; i < members; ++i) {
    char* raw_name = H5Tget_member_name(type.id(), static_cast<unsigned>(i));
    const std::string name = raw_name ? raw_name : "";
    H5free_memory(raw_name);
    const auto kind = column_type(H5Tget_member_class(type.id(), static_cast<unsigned>(i)));
    if (!kind) throw Error("HDF5: column '" + name + "' of table '" + table + "' is not text or a number");
    columns.push_back(read_table_column(parent, table, name, *kind));
  }
  return columns;
}

TableColumn read_column(const Handle& parent, const std::string& name) {
  const Handle dataset(
      check_in(H5Dopen2(parent.id(), name.c_str(), H5P_DEFAULT), parent.id(), "opening dataset '" + name + "'"));
  const Handle type(check(H5Dget_type(dataset.id()), "reading the type of '" + name + "'"));
  const auto kind = column_type(H5Tget_class(type.id()));
  if (kind == TableColumn::Type::integer) return {*kind, name, {}, read_vector<std::int64_t>(parent, name), {}};
  if (kind == TableColumn::Type::real) return {*kind, name, {}, {}, read_vector<double>(parent, name)};
  throw Error("HDF5: dataset '" + name + "' is not numeric");
}

}  // namespace glimpse::h5
