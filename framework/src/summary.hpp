// Runs read back from a trace file, the /summary and /curve_summary tables and the selection of grid points
// (presentation/trace_reading.hpp reads whole traces back for display; summary_print.hpp prints the report).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/named_results.hpp"
#include "hdf5.hpp"

namespace glimpse {

// Rounds per second of `rounds` played in `seconds` (0 when no time was measured).
inline double rounds_per_second(std::int64_t rounds, double seconds) noexcept {
  return seconds > 0 ? static_cast<double>(rounds) / seconds : 0.0;
}

struct RunSummary {
  std::string id, dataset, learner, label, params, status;
  std::int64_t seed = 0, grid_point = 0, rounds = 0;
  double seconds = 0.0;
  double peak_rss_mb = std::numeric_limits<double>::quiet_NaN();  // NaN in files older than schema 1.4
  double rounds_per_second() const noexcept { return glimpse::rounds_per_second(rounds, seconds); }
  std::string error;  // of a failed run, with the round it failed in
  std::int64_t failed_round = 0;
  std::vector<NamedScalar> metrics;  // final scalars, in the run's order
  std::vector<NamedCurve> curves;    // read only when asked for (read_run_summary's with_curves), in name order
  bool operator==(const RunSummary&) const = default;
};

// The params a run is selected by: its learner's parameters (JSON), after its dataset variant (a transform grid point)
// and followed by its query rule's name and parameters, when it has them: runs that differ in any are other points.
std::string selection_params(const std::string& params_json, const std::string& dataset_variant,
                             const std::string& query_rule, const std::string& query_rule_params);
// One run's, from its group (runs/<id>); with its curves too when `with_curves`.
RunSummary read_run_summary(const h5::Handle& run, const std::string& id, bool with_curves = false);
// Writes /summary: one row per run, columns run, dataset, learner, label, params, seed, grid_point, status,
// rounds, seconds, rounds_per_second, peak_rss_mb, then one float64 column per metric (NaN where a run lacks it).
void write_summary_table(const h5::Handle& file, const std::vector<RunSummary>& runs);

// Writes /curve_summary, the learning curves averaged over seeds in long form: one row per (dataset, learner
// label, grid point, curve, round) with columns dataset, label, params, chosen, curve, round, runs, mean, std (sample
// standard deviation over the runs). `chosen` is 1 on the rows of the selection choose_grid_points makes: a grid
// point, or, when seeds chose different points (per_seed), rows of their own averaging each seed's chosen run. The
// runs' curves are those `runs` carry (read_run_summary with_curves).
void write_curve_summary(const h5::Handle& file, const std::vector<RunSummary>& runs,
                         const std::string& selection_metric, bool maximize, bool per_seed);

// A (dataset, learner label)'s grid points (params) and each one's complete runs, all in first-seen order so reports
// follow the protocol.
struct GridPointGroup {
  std::string dataset, learner;
  std::vector<std::pair<std::string, std::vector<const RunSummary*>>> points;
};
std::vector<GridPointGroup> group_by_grid_point(const std::vector<RunSummary>& runs);

// The runs behind one summary row: a grid point's complete runs, or each seed's chosen run.
struct SelectedRuns {
  std::string dataset, learner, params;
  std::vector<const RunSummary*> runs;  // into the vector the selection was given
};
// Per group, what the selection rule chooses: the grid point with the best mean of `selection_metric` over its runs
// (the first point when no run has the metric), or, `per_seed` (a protocol's "selection" per seed, as
// cross-validation chooses), each seed's own best run (ties to the earlier point), `params` then naming the point
// chosen most often ("per seed; most often (3/5): ...") unless every seed chose the same one. With `every_seed`
// (choosing on some seeds only, the caller having kept just their runs), a grid point lacking a complete run of one of
// them cannot be chosen, and a group where none has them all is left out.
std::vector<SelectedRuns> choose_grid_points(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                             bool maximize, bool per_seed = false,
                                             const std::vector<std::int64_t>* every_seed = nullptr);
// A run's final value of a metric; NaN when the run has none.
double final_metric(const RunSummary& run, const std::string& name);

// The mean of values and their sample standard deviation (divided by n - 1). With one value the std is NaN, not 0:
// one seed says nothing of the spread over seeds.
struct MeanStd {
  double mean, std;
};
MeanStd mean_and_std(const std::vector<double>& values);

}  // namespace glimpse
