// The per-learner summary of a trace file (the chosen grid points, mean and std over seeds), as `glimpse summary`
// and the end of `glimpse run` print it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "summary.hpp"

namespace glimpse {

// One row per (dataset, learner): the grid point chosen by the selection rule (mean over seeds), with the
// mean and sample standard deviation over seeds of every metric.
struct SummaryRow {
  std::string dataset, learner, params;
  std::int64_t seeds = 0;
  std::vector<std::string> metric_names;
  std::vector<double> means, stds;
  double rounds_per_second = 0.0;                                 // mean over the runs
  double peak_rss_mb = std::numeric_limits<double>::quiet_NaN();  // the largest of the runs' process peaks
};
// With every_grid_point, one row per (dataset, learner, grid point) instead of the chosen one. With per_seed,
// each seed's best run instead of the grid point of best mean (params then names the point chosen most often).
std::vector<SummaryRow> summarize(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                  bool maximize, bool every_grid_point = false, bool per_seed = false);

// What to say of a final metric no run has: "no run has the final metric 'M'; the runs have: a, b".
std::string no_such_metric(const std::string& metric, const std::vector<RunSummary>& runs);

// What to say when which way is better for a metric is not known: `rules` names the selection rule of each of the
// `files` files ("online_accuracy (max)"), none of them by that metric.
std::string goal_not_known(const std::string& rules, std::size_t files);

// Rounds per second as tables show it: "850k", "1.23M".
std::string throughput_text(double rounds_per_second);

enum class SummaryView {
  rows,              // one row per (dataset, learner) at the chosen grid point, every metric
  table,             // the papers' layout: datasets x learners, one metric, then the chosen parameters
  every_grid_point,  // one row per (dataset, learner, grid point), every metric
};
// Prints the summary of a trace file (the selection rule is read from the file). `table_metric`: the metric
// of SummaryView::table (default: the selection metric).
void print_summary(const std::filesystem::path& file, std::ostream& out, SummaryView view = SummaryView::rows,
                   const std::string& table_metric = "");

}  // namespace glimpse
