// Run summaries: reading one back, the /summary and /curve_summary tables, and the selection of grid points.
#include "summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace glimpse {

RunSummary read_run_summary(const h5::Handle& run, const std::string& id, bool with_curves) {
  RunSummary s;
  s.id = id;
  s.dataset = h5::read_string_attribute(run, "dataset");
  s.learner = h5::read_string_attribute(run, "learner");
  s.label = h5::has_attribute(run, "label") ? h5::read_string_attribute(run, "label") : s.learner;
  s.params = h5::read_string_attribute(run, "params");
  // A dataset variant (a transform grid point) is part of what selection chooses among.
  if (h5::has_attribute(run, "dataset_variant")) {
    const std::string variant = h5::read_string_attribute(run, "dataset_variant");
    if (!variant.empty()) s.params = variant + " " + s.params;
  }
  // So is the query rule's setting: runs of one learner under different rules (or rule grid points) differ.
  if (h5::has_attribute(run, "query_rule")) {
    const std::string rule = h5::read_string_attribute(run, "query_rule");
    if (!rule.empty()) s.params += " " + rule + h5::read_string_attribute(run, "query_rule_params");
  }
  s.status = h5::has_attribute(run, "status") ? h5::read_string_attribute(run, "status") : "incomplete";
  s.seed = h5::read_int_attribute(run, "seed");
  s.grid_point = h5::read_int_attribute(run, "grid_point");
  s.rounds = h5::read_int_attribute(run, "rounds");
  s.seconds = h5::read_double_attribute(run, "seconds");
  if (h5::has_attribute(run, "peak_rss_mb")) s.peak_rss_mb = h5::read_double_attribute(run, "peak_rss_mb");
  if (h5::has_attribute(run, "error")) {
    s.error = h5::read_string_attribute(run, "error");
    s.failed_round = h5::read_int_attribute(run, "failed_round");
  }
  if (h5::exists(run, "summary")) {
    const h5::Handle summary = h5::open_group(run, "summary");
    for (const auto& name : h5::attribute_names(summary))
      s.metrics.emplace_back(name, h5::read_double_attribute(summary, name));
  }
  if (with_curves && h5::exists(run, "curves")) {
    const h5::Handle curves = h5::open_group(run, "curves");
    for (const auto& name : h5::children(curves)) {
      const h5::Handle curve = h5::open_group(curves, name);
      s.curves.push_back(
          {name, h5::read_vector<std::int64_t>(curve, "round"), h5::read_vector<double>(curve, "value")});
    }
  }
  return s;
}

void write_summary_table(const h5::Handle& file, const std::vector<RunSummary>& runs) {
  using Type = h5::TableColumn::Type;
  std::vector<h5::TableColumn> columns{{Type::text, "run", {}, {}, {}},
                                       {Type::text, "dataset", {}, {}, {}},
                                       {Type::text, "learner", {}, {}, {}},
                                       {Type::text, "label", {}, {}, {}},
                                       {Type::text, "params", {}, {}, {}},
                                       {Type::integer, "seed", {}, {}, {}},
                                       {Type::integer, "grid_point", {}, {}, {}},
                                       {Type::text, "status", {}, {}, {}},
                                       {Type::integer, "rounds", {}, {}, {}},
                                       {Type::real, "seconds", {}, {}, {}},
                                       {Type::real, "rounds_per_second", {}, {}, {}},
                                       {Type::real, "peak_rss_mb", {}, {}, {}}};
  std::vector<std::string> metric_names;
  for (const auto& run : runs)
    for (const auto& [name, value] : run.metrics)
      if (std::find(metric_names.begin(), metric_names.end(), name) == metric_names.end()) metric_names.push_back(name);
  for (const auto& name : metric_names) columns.push_back({Type::real, name, {}, {}, {}});
  for (const auto& run : runs) {
    columns[0].texts.push_back(run.id);
    columns[1].texts.push_back(run.dataset);
    columns[2].texts.push_back(run.learner);
    columns[3].texts.push_back(run.label);
    columns[4].texts.push_back(run.params);
    columns[5].integers.push_back(run.seed);
    columns[6].integers.push_back(run.grid_point);
    columns[7].texts.push_back(run.status);
    columns[8].integers.push_back(run.rounds);
    columns[9].reals.push_back(run.seconds);
    columns[10].reals.push_back(run.rounds_per_second());
    columns[11].reals.push_back(run.peak_rss_mb);
    for (std::size_t m = 0; m < metric_names.size(); ++m) {
      double value = std::numeric_limits<double>::quiet_NaN();
      for (const auto& [name, v] : run.metrics)
        if (name == metric_names[m]) value = v;
      columns[12 + m].reals.push_back(value);
    }
  }
  h5::write_table(file, "summary", columns, runs.size());
}

std::vector<GridPointGroup> group_by_grid_point(const std::vector<RunSummary>& runs) {
  std::vector<GridPointGroup> groups;
  for (const auto& run : runs) {
    if (run.status != "complete") continue;
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const GridPointGroup& x) { return x.dataset == run.dataset && x.learner == run.label; });
    if (g == groups.end()) g = groups.insert(groups.end(), GridPointGroup{run.dataset, run.label, {}});
    auto p = std::find_if(g->points.begin(), g->points.end(), [&](const auto& x) { return x.first == run.params; });
    if (p == g->points.end()) p = g->points.insert(g->points.end(), {run.params, {}});
    p->second.push_back(&run);
  }
  return groups;
}

double final_metric(const RunSummary& run, const std::string& name) {
  for (const auto& [n, v] : run.metrics)
    if (n == name) return v;
  return std::numeric_limits<double>::quiet_NaN();
}

std::vector<SelectedRuns> choose_grid_points(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                             bool maximize) {
  std::vector<SelectedRuns> selected;
  for (const auto& g : group_by_grid_point(runs)) {
    const std::vector<const RunSummary*>* best = nullptr;
    const std::string* best_params = nullptr;
    double best_value = 0.0;
    for (const auto& [params, members] : g.points) {
      double sum = 0.0;
      for (const auto* run : members) sum += final_metric(*run, selection_metric);
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
    selected.push_back({g.dataset, g.learner, *best_params, *best});
  }
  return selected;
}

void write_curve_summary(const h5::Handle& file, const std::vector<RunSummary>& runs,
                         const std::string& selection_metric, bool maximize) {
  using Type = h5::TableColumn::Type;
  std::vector<h5::TableColumn> columns{
      {Type::text, "dataset", {}, {}, {}},   {Type::text, "label", {}, {}, {}}, {Type::text, "params", {}, {}, {}},
      {Type::integer, "chosen", {}, {}, {}}, {Type::text, "curve", {}, {}, {}}, {Type::integer, "round", {}, {}, {}},
      {Type::integer, "runs", {}, {}, {}},   {Type::real, "mean", {}, {}, {}},  {Type::real, "std", {}, {}, {}}};
  const auto chosen_points = choose_grid_points(runs, selection_metric, maximize);
  std::size_t rows = 0;
  for (const auto& group : group_by_grid_point(runs))
    for (const auto& [params, members] : group.points) {
      const bool chosen =
          std::any_of(chosen_points.begin(), chosen_points.end(), [&, &point = params](const SelectedRuns& r) {
            return r.dataset == group.dataset && r.learner == group.learner && r.params == point;
          });
      // curve name -> round -> (count, mean, sum of squared deviations) by Welford's update, which stays
      // accurate for large values with small spread (mistake counts); rounds in increasing order.
      std::vector<std::pair<std::string, std::map<std::int64_t, std::array<double, 3>>>> curves;
      for (const auto* run : members)
        for (const auto& curve : run->curves) {  // (not a structured binding: clang 15 cannot capture one)
          auto c = std::find_if(curves.begin(), curves.end(), [&](const auto& x) { return x.first == curve.name; });
          if (c == curves.end()) c = curves.insert(curves.end(), {curve.name, {}});
          const auto& round = curve.rounds;
          const auto& value = curve.values;
          auto hint = c->second.begin();  // a run's rounds come in increasing order: each insert lands at the end
          for (std::size_t i = 0; i < round.size() && i < value.size(); ++i) {
            hint = c->second.try_emplace(hint, round[i]);
            auto& [count, mean, squares] = hint->second;
            count += 1;
            const double delta = value[i] - mean;
            mean += delta / count;
            squares += delta * (value[i] - mean);
          }
        }
      for (const auto& [name, points] : curves)
        for (const auto& [round, acc] : points) {
          const auto [n, mean, squares] = acc;
          const double variance = n > 1 ? squares / (n - 1) : 0.0;
          columns[0].texts.push_back(group.dataset);
          columns[1].texts.push_back(group.learner);
          columns[2].texts.push_back(params);
          columns[3].integers.push_back(chosen ? 1 : 0);
          columns[4].texts.push_back(name);
          columns[5].integers.push_back(round);
          columns[6].integers.push_back(static_cast<std::int64_t>(n));
          columns[7].reals.push_back(mean);
          columns[8].reals.push_back(std::sqrt(variance));
          ++rows;
        }
    }
  h5::write_table(file, "curve_summary", columns, rows);
}

}  // namespace glimpse
