// Run summaries: reading them back, the /summary table, and the selection-and-average report.
#include "summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "glimpse/error.hpp"
#include "text_table.hpp"

namespace glimpse {

std::vector<RunSummary> read_run_summaries(const h5::Handle& file) {
  std::vector<RunSummary> runs;
  if (!h5::exists(file, "runs")) return runs;
  const h5::Handle group = h5::open_group(file, "runs");
  for (const auto& id : h5::children(group)) {
    const h5::Handle run = h5::open_group(group, id);
    RunSummary s;
    s.id = id;
    s.dataset = h5::read_string_attribute(run, "dataset");
    s.learner = h5::read_string_attribute(run, "learner");
    s.params = h5::read_string_attribute(run, "params");
    s.status = h5::has_attribute(run, "status") ? h5::read_string_attribute(run, "status") : "incomplete";
    s.seed = h5::read_int_attribute(run, "seed");
    s.grid_point = h5::read_int_attribute(run, "grid_point");
    s.rounds = h5::read_int_attribute(run, "rounds");
    s.seconds = h5::read_double_attribute(run, "seconds");
    if (h5::exists(run, "summary")) {
      const h5::Handle summary = h5::open_group(run, "summary");
      for (const auto& name : h5::attribute_names(summary))
        s.metrics.emplace_back(name, h5::read_double_attribute(summary, name));
    }
    runs.push_back(std::move(s));
  }
  return runs;
}

void write_summary_table(const h5::Handle& file, const std::vector<RunSummary>& runs) {
  using Type = h5::TableColumn::Type;
  std::vector<h5::TableColumn> columns{{Type::text, "run", {}, {}, {}},     {Type::text, "dataset", {}, {}, {}},
                                       {Type::text, "learner", {}, {}, {}}, {Type::text, "params", {}, {}, {}},
                                       {Type::integer, "seed", {}, {}, {}}, {Type::integer, "grid_point", {}, {}, {}},
                                       {Type::text, "status", {}, {}, {}},  {Type::integer, "rounds", {}, {}, {}},
                                       {Type::real, "seconds", {}, {}, {}}};
  std::vector<std::string> metric_names;
  for (const auto& run : runs)
    for (const auto& [name, value] : run.metrics)
      if (std::find(metric_names.begin(), metric_names.end(), name) == metric_names.end()) metric_names.push_back(name);
  for (const auto& name : metric_names) columns.push_back({Type::real, name, {}, {}, {}});
  for (const auto& run : runs) {
    columns[0].texts.push_back(run.id);
    columns[1].texts.push_back(run.dataset);
    columns[2].texts.push_back(run.learner);
    columns[3].texts.push_back(run.params);
    columns[4].integers.push_back(run.seed);
    columns[5].integers.push_back(run.grid_point);
    columns[6].texts.push_back(run.status);
    columns[7].integers.push_back(run.rounds);
    columns[8].reals.push_back(run.seconds);
    for (std::size_t m = 0; m < metric_names.size(); ++m) {
      double value = std::numeric_limits<double>::quiet_NaN();
      for (const auto& [name, v] : run.metrics)
        if (name == metric_names[m]) value = v;
      columns[9 + m].reals.push_back(value);
    }
  }
  h5::write_table(file, "summary", columns, runs.size());
}

std::vector<SummaryRow> summarize(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                  bool maximize) {
  // (dataset, learner) -> params -> runs, all in first-seen order so the report follows the protocol.
  struct Group {
    std::string dataset, learner;
    std::vector<std::pair<std::string, std::vector<const RunSummary*>>> points;
  };
  std::vector<Group> groups;
  for (const auto& run : runs) {
    if (run.status != "complete") continue;
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.dataset == run.dataset && x.learner == run.learner; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{run.dataset, run.learner, {}});
    auto p = std::find_if(g->points.begin(), g->points.end(), [&](const auto& x) { return x.first == run.params; });
    if (p == g->points.end()) p = g->points.insert(g->points.end(), {run.params, {}});
    p->second.push_back(&run);
  }
  const auto metric = [](const RunSummary& run, const std::string& name) {
    for (const auto& [n, v] : run.metrics)
      if (n == name) return v;
    return std::numeric_limits<double>::quiet_NaN();
  };
  std::vector<SummaryRow> rows;
  for (const auto& g : groups) {
    const std::vector<const RunSummary*>* best = nullptr;
    const std::string* best_params = nullptr;
    double best_value = 0.0;
    for (const auto& [params, members] : g.points) {
      double sum = 0.0;
      for (const auto* run : members) sum += metric(*run, selection_metric);
      const double mean = sum / static_cast<double>(members.size());
      if (std::isnan(mean)) continue;
      if (!best || (maximize ? mean > best_value : mean < best_value)) {
        best = &members;
        best_params = &params;
        best_value = mean;
      }
    }
    if (!best) {  // no run has the selection metric: report the first grid point
      best = &g.points.front().second;
      best_params = &g.points.front().first;
    }
    SummaryRow row{g.dataset, g.learner, *best_params, static_cast<std::int64_t>(best->size()), {}, {}, {}};
    for (const auto& [name, value] : best->front()->metrics) {
      double sum = 0.0;
      for (const auto* run : *best) sum += metric(*run, name);
      const double n = static_cast<double>(best->size());
      const double mean = sum / n;
      double squares = 0.0;
      for (const auto* run : *best) squares += (metric(*run, name) - mean) * (metric(*run, name) - mean);
      row.metric_names.push_back(name);
      row.means.push_back(mean);
      row.stds.push_back(best->size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void print_summary(const std::filesystem::path& path, std::ostream& out) {
  if (!std::filesystem::exists(path)) throw Error(path.string(), "no such file");
  if (!h5::is_hdf5(path)) throw Error(path.string(), "not an HDF5 file");
  const h5::Handle file = h5::open_file(path, false);
  if (!h5::has_attribute(file, "schema_version"))
    throw Error(path.string(), "not a glimpse trace file (no schema_version)");
  const std::string metric = h5::read_string_attribute(file, "selection_metric");
  const bool maximize = h5::read_string_attribute(file, "selection_goal") == "max";
  const auto runs = read_run_summaries(file);
  const auto rows = summarize(runs, metric, maximize);
  const auto total = h5::read_int_attribute(file, "runs_total");
  out << path.string() << ": " << runs.size() << " of " << total << " runs complete; grid point chosen by "
      << (maximize ? "max" : "min") << " mean " << metric << "; mean (std) over seeds\n\n";
  std::vector<std::string> header{"dataset", "learner", "params", "seeds"};
  std::vector<std::string> names;
  for (const auto& row : rows)
    for (const auto& n : row.metric_names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  header.insert(header.end(), names.begin(), names.end());
  TextTable table(header);
  for (const auto& row : rows) {
    std::vector<std::string> cells{row.dataset, row.learner, row.params, std::to_string(row.seeds)};
    for (const auto& n : names) {
      const auto it = std::find(row.metric_names.begin(), row.metric_names.end(), n);
      if (it == row.metric_names.end()) {
        cells.emplace_back("-");
        continue;
      }
      const auto i = static_cast<std::size_t>(it - row.metric_names.begin());
      char buffer[64];
      const double m = row.means[i], s = row.stds[i];
      // Fractions in [0, 1] read best as percentages, as the papers print them.
      const bool fraction = n.find("accuracy") != std::string::npos || n.find("rate") != std::string::npos;
      if (fraction)
        std::snprintf(buffer, sizeof buffer, "%.1f%% (%.1f)", 100 * m, 100 * s);
      else
        std::snprintf(buffer, sizeof buffer, "%.4g (%.3g)", m, s);
      cells.emplace_back(buffer);
    }
    table.add_row(std::move(cells));
  }
  table.print(out);
}

}  // namespace glimpse
