// The per-learner summary report of a trace file, as `glimpse summary` and the end of `glimpse run` print it.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace glimpse {

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
