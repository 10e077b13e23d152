// Run summaries: reading one back, the /summary and /curve_summary tables, and the selection of grid points.
#include "summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <deque>
#include <limits>
#include <optional>

#include "trace_schema.hpp"

namespace glimpse {

std::string selection_params(const std::string& params_json, const std::string& dataset_variant,
                             const std::string& query_rule, const std::string& query_rule_params) {
  std::string params = dataset_variant.empty() ? params_json : dataset_variant + " " + params_json;
  if (!query_rule.empty()) params += " " + query_rule + query_rule_params;
  return params;
}

RunSummary read_run_summary(const h5::Handle& run, const std::string& id, bool with_curves) {
  RunSummary s;
  s.id = id;
  s.dataset = h5::read_string_attribute(run, schema::run::dataset);
  s.learner = h5::read_string_attribute(run, schema::run::learner);
  s.label = h5::has_attribute(run, schema::run::label) ? h5::read_string_attribute(run, schema::run::label) : s.learner;
  const auto optional_text = [&](const char* name) {
    return h5::has_attribute(run, name) ? h5::read_string_attribute(run, name) : std::string();
  };
  const std::string rule = optional_text(schema::run::query_rule);
  s.params = selection_params(h5::read_string_attribute(run, schema::run::params),
                              optional_text(schema::run::dataset_variant), rule,
                              rule.empty() ? std::string()
                                           : h5::read_string_attribute(run, schema::run::query_rule_params));
  s.status = h5::has_attribute(run, schema::run::status) ? h5::read_string_attribute(run, schema::run::status)
                                                         : schema::status::incomplete;
  s.seed = h5::read_int_attribute(run, schema::run::seed);
  s.grid_point = h5::read_int_attribute(run, schema::run::grid_point);
  s.rounds = h5::read_int_attribute(run, schema::run::rounds);
  s.seconds = h5::read_double_attribute(run, schema::run::seconds);
  if (h5::has_attribute(run, schema::run::peak_rss_mb))
    s.peak_rss_mb = h5::read_double_attribute(run, schema::run::peak_rss_mb);
  if (h5::has_attribute(run, schema::run::error)) {
    s.error = h5::read_string_attribute(run, schema::run::error);
    s.failed_round = h5::read_int_attribute(run, schema::run::failed_round);
  }
  if (h5::exists(run, schema::run::summary_group)) {
    const h5::Handle summary = h5::open_group(run, schema::run::summary_group);
    for (const auto& name : h5::attribute_names(summary))
      s.metrics.push_back({name, h5::read_double_attribute(summary, name)});
  }
  if (with_curves && h5::exists(run, schema::run::curves_group)) {
    const h5::Handle curves = h5::open_group(run, schema::run::curves_group);
    for (const auto& name : h5::children(curves)) {
      const h5::Handle curve = h5::open_group(curves, name);
      s.curves.push_back({name, h5::read_vector<std::int64_t>(curve, schema::curve::round),
                          h5::read_vector<double>(curve, schema::curve::value)});
    }
  }
  return s;
}

void write_summary_table(const h5::Handle& file, const std::vector<RunSummary>& runs) {
  using Type = h5::TableColumn::Type;
  // The identity columns' types, in the order schema::summary_identity_columns names them and the rows fill them.
  constexpr std::array identity_types{Type::text,    Type::text, Type::text,    Type::text, Type::text, Type::integer,
                                      Type::integer, Type::text, Type::integer, Type::real, Type::real, Type::real};
  static_assert(identity_types.size() == std::size(schema::summary_identity_columns));
  std::vector<h5::TableColumn> columns;
  for (std::size_t i = 0; i < identity_types.size(); ++i)
    columns.push_back({identity_types[i], schema::summary_identity_columns[i], {}, {}, {}});
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
  h5::write_table(file, schema::root::summary, columns, runs.size());
}

std::vector<GridPointGroup> group_by_grid_point(const std::vector<RunSummary>& runs) {
  std::vector<GridPointGroup> groups;
  for (const auto& run : runs) {
    if (run.status != schema::status::complete) continue;
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

MeanStd mean_and_std(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  double sum = 0.0;
  for (const double v : values) sum += v;
  const double mean = sum / n;
  double squares = 0.0;
  for (const double v : values) squares += (v - mean) * (v - mean);
  return {mean, values.size() > 1 ? std::sqrt(squares / (n - 1)) : std::numeric_limits<double>::quiet_NaN()};
}

namespace {
// Whether a grid point's runs include one of each seed.
bool has_every_seed(const std::vector<const RunSummary*>& members, const std::vector<std::int64_t>& seeds) {
  return std::all_of(seeds.begin(), seeds.end(), [&](std::int64_t seed) {
    return std::any_of(members.begin(), members.end(), [&](const RunSummary* run) { return run->seed == seed; });
  });
}

// The grid point with the best mean of `metric` over its runs (the first point when no run has the metric); with
// `every_seed`, among the points that have a run of each of those seeds (none: nothing is chosen).
std::optional<SelectedRuns> best_mean_point(const GridPointGroup& g, const std::string& metric, bool maximize,
                                            const std::vector<std::int64_t>* every_seed) {
  const std::pair<std::string, std::vector<const RunSummary*>>* best = nullptr;
  double best_value = 0.0;
  for (const auto& point : g.points) {
    if (every_seed && !has_every_seed(point.second, *every_seed)) continue;
    double sum = 0.0;
    for (const auto* run : point.second) sum += final_metric(*run, metric);
    const double mean = sum / static_cast<double>(point.second.size());
    if (std::isnan(mean)) continue;
    if (!best || (maximize ? mean > best_value : mean < best_value)) {
      best = &point;
      best_value = mean;
    }
  }
  if (!best && every_seed) return std::nullopt;
  if (!best) best = &g.points.front();
  return SelectedRuns{g.dataset, g.learner, best->first, best->second};
}

// Each seed's own best run (ties to the earlier grid point), named by the point chosen most often.
SelectedRuns best_point_per_seed(const GridPointGroup& g, const std::string& metric, bool maximize) {
  std::vector<const RunSummary*> chosen;  // one per seed
  for (const auto& [params, members] : g.points)
    for (const auto* run : members) {
      const auto same_seed =
          std::find_if(chosen.begin(), chosen.end(), [&](const RunSummary* c) { return c->seed == run->seed; });
      const double value = final_metric(*run, metric);
      if (same_seed == chosen.end()) {
        chosen.push_back(run);
      } else if (!std::isnan(value)) {
        const double incumbent = final_metric(**same_seed, metric);
        if (std::isnan(incumbent) || (maximize ? value > incumbent : value < incumbent)) *same_seed = run;
      }
    }
  std::vector<std::pair<std::string, std::int64_t>> counts;
  for (const auto* run : chosen) {
    auto c = std::find_if(counts.begin(), counts.end(), [&](const auto& x) { return x.first == run->params; });
    if (c == counts.end()) c = counts.insert(counts.end(), {run->params, 0});
    ++c->second;
  }
  const auto most =
      std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const std::string params = counts.size() == 1 ? most->first
                                                : "per seed; most often (" + std::to_string(most->second) + "/" +
                                                      std::to_string(chosen.size()) + "): " + most->first;
  return {g.dataset, g.learner, params, std::move(chosen)};
}

// What the selection rule chooses in one group (choose_grid_points).
std::optional<SelectedRuns> choose_in_group(const GridPointGroup& g, const std::string& metric, bool maximize,
                                            bool per_seed, const std::vector<std::int64_t>* every_seed = nullptr) {
  if (per_seed) return best_point_per_seed(g, metric, maximize);
  return best_mean_point(g, metric, maximize, every_seed);
}
}  // namespace

std::vector<SelectedRuns> choose_grid_points(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                             bool maximize, bool per_seed,
                                             const std::vector<std::int64_t>* every_seed) {
  std::vector<SelectedRuns> selected;
  for (const auto& g : group_by_grid_point(runs))
    if (auto choice = choose_in_group(g, selection_metric, maximize, per_seed, every_seed))
      selected.push_back(std::move(*choice));
  return selected;
}

void write_curve_summary(const h5::Handle& file, const std::vector<RunSummary>& runs,
                         const std::string& selection_metric, bool maximize, bool per_seed) {
  using Type = h5::TableColumn::Type;
  const std::vector<h5::TableColumn> columns{
      {Type::text, schema::run::dataset, {}, {}, {}},   {Type::text, schema::run::label, {}, {}, {}},
      {Type::text, schema::run::params, {}, {}, {}},    {Type::integer, schema::table::chosen, {}, {}, {}},
      {Type::text, schema::table::curve, {}, {}, {}},   {Type::integer, schema::table::round, {}, {}, {}},
      {Type::integer, schema::table::runs, {}, {}, {}}, {Type::real, schema::table::mean, {}, {}, {}},
      {Type::real, schema::table::std_dev, {}, {}, {}}};
  // The rows as h5::write_table_rows takes them, in the order of `columns`. The text cells point into `runs`,
  // `groups` and `per_seed_choices`, which outlive the write: a copy of each string per row (tens of thousands of
  // rows, four strings each) was a fifth of the time this table took, most of a sweep's serial finishing (#57).
  struct Row {
    const char* dataset;
    const char* label;
    const char* params;
    std::int64_t chosen;
    const char* curve;
    std::int64_t round, runs;
    double mean, std_dev;
  };
  static_assert(sizeof(Row) == 9 * 8 && offsetof(Row, std_dev) == 8 * 8, "one 8-byte cell per column");
  std::vector<Row> rows;
  // One row per curve and round of `members`' curves, averaged.
  const auto add_rows = [&](const std::string& dataset, const std::string& learner, const std::string& params,
                            const std::vector<const RunSummary*>& members, bool chosen) {
    // curve name -> (round, (count, mean, sum of squared deviations)) in increasing rounds, by Welford's update,
    // which stays accurate for large values with small spread (mistake counts). Each run's rounds come in
    // increasing order and are mostly the same as the others': merged in one pass (a map insert per point made the
    // whole table take 0.33 s instead of 0.21 s of a sweep's serial finishing on 800 runs of 4,000 points, #57).
    using Point = std::pair<std::int64_t, std::array<double, 3>>;
    std::vector<std::pair<const std::string*, std::vector<Point>>> curves;
    std::vector<Point> merged;       // reused for every run's curve
    std::vector<std::size_t> order;  // a run's points in increasing rounds (stably sorted when they are not)
    for (const auto* run : members)
      for (const auto& curve : run->curves) {  // (not a structured binding: clang 15 cannot capture one)
        auto c = std::find_if(curves.begin(), curves.end(), [&](const auto& x) { return *x.first == curve.name; });
        if (c == curves.end()) c = curves.insert(curves.end(), {&curve.name, {}});
        const auto& round = curve.rounds;
        const auto& value = curve.values;
        const std::vector<Point>& points = c->second;
        order.resize(std::min(round.size(), value.size()));
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        if (!std::is_sorted(round.begin(), round.begin() + static_cast<std::ptrdiff_t>(order.size())))
          std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return round[a] < round[b]; });
        merged.clear();
        std::size_t at = 0;
        for (const std::size_t i : order) {
          while (at < points.size() && points[at].first < round[i]) merged.push_back(points[at++]);
          if (merged.empty() || merged.back().first != round[i]) {
            if (at < points.size() && points[at].first == round[i])
              merged.push_back(points[at++]);
            else
              merged.push_back({round[i], {}});
          }
          auto& [count, mean, squares] = merged.back().second;
          count += 1;
          const double delta = value[i] - mean;
          mean += delta / count;
          squares += delta * (value[i] - mean);
        }
        merged.insert(merged.end(), points.begin() + static_cast<std::ptrdiff_t>(at), points.end());
        std::swap(c->second, merged);
      }
    for (const auto& [name, points] : curves)
      for (const auto& [round, acc] : points) {
        const auto [n, mean, squares] = acc;
        const double variance = n > 1 ? squares / (n - 1) : 0.0;
        rows.push_back({dataset.c_str(), learner.c_str(), params.c_str(), chosen ? 1 : 0, name->c_str(), round,
                        static_cast<std::int64_t>(n), mean, std::sqrt(variance)});
      }
  };
  const std::vector<GridPointGroup> groups = group_by_grid_point(runs);
  std::deque<SelectedRuns> per_seed_choices;  // (a deque: the rows point into its elements)
  for (const auto& group : groups) {
    SelectedRuns selected = *choose_in_group(group, selection_metric, maximize, per_seed);
    bool a_grid_point = false;
    for (const auto& [params, members] : group.points) {
      a_grid_point = a_grid_point || params == selected.params;
      add_rows(group.dataset, group.learner, params, members, params == selected.params);
    }
    // Seeds that chose different grid points: the chosen curves are each seed's own chosen run's, a point of no grid.
    if (!a_grid_point) {
      const SelectedRuns& kept = per_seed_choices.emplace_back(std::move(selected));
      add_rows(kept.dataset, kept.learner, kept.params, kept.runs, true);
    }
  }
  h5::write_table_rows(file, schema::root::curve_summary, columns, rows.data(), rows.size());
}

}  // namespace glimpse
