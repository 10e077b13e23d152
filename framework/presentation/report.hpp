// `glimpse report`: the papers' tables from trace files. Per dataset and learner, the grid point the file's
// selection rule chose and the mean (std) over seeds of a final metric; the best per dataset and the learners
// not significantly different from it (two-sided paired t-test over shared seeds); optionally bootstrap
// confidence intervals; across datasets, average ranks, the Friedman test and Holm's step-down comparisons
// with the best-ranked learner (Demsar, JMLR 2006). Several files (e.g. two versions of a learner on one
// protocol) are compared as one table, their learners named "label [file]".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace glimpse {

struct ReportOptions {
  std::vector<std::string> metrics;  // empty: each file's selection metric
  std::optional<bool> maximize;      // which way is better; default: the goal of a file selecting by the metric
  double alpha = 0.05;               // level of the t-tests, the Friedman test and Holm's procedure
  std::int64_t bootstrap = 0;        // resamples for 95% percentile intervals of the mean (0: show std instead)
};

struct ReportCell {
  std::string params;
  std::vector<std::int64_t> seeds;  // increasing
  std::vector<double> values;       // per seed, the final metric
  double mean = 0.0, std = 0.0, ci_low = 0.0, ci_high = 0.0;
  bool best = false;
  bool tied_with_best = false;  // not significantly different from the best (never set on the best itself)
  double p_value = 1.0;         // paired t-test against the best (1 for the best; NaN when untested)
  // Fewer than two seeds in common with the best (files of other seeds): no test, so neither tied nor different.
  bool untested = false;
};

struct HolmComparison {
  std::string learner;
  double z = 0.0, p_value = 1.0, threshold = 0.0;  // Holm's alpha / (k - i) for this step
  bool significant = false;                        // differs from the control
};

struct MetricReport {
  std::string metric;
  bool maximize = true;
  std::vector<std::string> datasets, learners;
  std::vector<std::vector<std::optional<ReportCell>>> cells;  // [dataset][learner]
  // Across the datasets where every learner has a value (empty when fewer than 2 datasets or learners).
  std::int64_t ranked_datasets = 0;
  std::vector<double> average_ranks;  // per learner; 1 = best
  double friedman_statistic = 0.0, friedman_p = 1.0;
  std::string control;  // the learner of best average rank
  std::vector<HolmComparison> holm;
};

std::vector<MetricReport> build_report(const std::vector<std::filesystem::path>& files, const ReportOptions& options);

enum class ReportFormat { markdown, latex, csv };
ReportFormat parse_report_format(const std::string& name);  // md, latex or csv; Error otherwise
void write_report(const std::vector<MetricReport>& reports, const ReportOptions& options, ReportFormat format,
                  std::ostream& out);

// The statistics, exposed for their tests. Paired two-sided t-test p-value of the differences (1 when fewer than
// two pairs or no spread and no mean difference; 0 when no spread but a mean difference).
double paired_t_test(const std::vector<double>& differences);
// Ranks within one row of values (1 = best; ties share their average rank).
std::vector<double> ranks(const std::vector<double>& values, bool maximize);

}  // namespace glimpse
