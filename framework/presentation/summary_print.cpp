// The summary report: the chosen grid point's mean (std) per (dataset, learner), the papers' table layout, and
// the failed runs.
#include "summary_print.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "summary.hpp"
#include "text_table.hpp"
#include "trace_reading.hpp"
#include "trace_schema.hpp"

namespace glimpse {

std::vector<SummaryRow> summarize(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                  bool maximize, bool every_grid_point, bool per_seed) {
  std::vector<SummaryRow> rows;
  for (const auto& chosen : select_runs(runs, selection_metric, maximize, every_grid_point, per_seed)) {
    // Mean and sample standard deviation over the chosen runs, for every metric (no std from one run: "(-)").
    const auto& members = chosen.runs;
    SummaryRow row{
        chosen.dataset, chosen.learner, chosen.params, static_cast<std::int64_t>(members.size()), {}, {}, {}};
    for (const auto* run : members) {
      row.rounds_per_second += run->rounds_per_second() / static_cast<double>(members.size());
      if (std::isnan(row.peak_rss_mb) || run->peak_rss_mb > row.peak_rss_mb) row.peak_rss_mb = run->peak_rss_mb;
    }
    std::vector<double> values(members.size());
    for (const auto& [name, value] : members.front()->metrics) {
      for (std::size_t i = 0; i < members.size(); ++i) values[i] = final_metric(*members[i], name);
      const auto [mean, std] = mean_and_std(values);
      row.metric_names.push_back(name);
      row.means.push_back(mean);
      row.stds.push_back(std);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string throughput_text(double rounds_per_second) {
  char buffer[32];
  if (rounds_per_second >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.2fM", rounds_per_second / 1e6);
  else if (rounds_per_second >= 1e3)
    std::snprintf(buffer, sizeof buffer, "%.0fk", rounds_per_second / 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f", rounds_per_second);
  return buffer;
}

namespace {
// "75.4% (0.8)" for fractions (accuracies, rates: as the papers print them), else "398.4 (11.2)".
std::string mean_std_text(const std::string& metric, double mean, double std) {
  if (std::isnan(mean)) return "-";  // the metric does not apply to these runs
  return format_metric(metric, mean, false) + " (" + format_metric(metric, std, true) + ")";
}
// Failed runs are left out of every mean; this lists them, with where and why they failed.
void print_failed_runs(const std::vector<const RunSummary*>& failed, std::ostream& out) {
  if (failed.empty()) return;
  out << "\nfailed runs (left out above; rerunning the protocol retries them):\n";
  TextTable table({"run", "dataset", "learner", "params", "seed", "round", "error"});
  for (const auto* run : failed)
    table.add_row({run->id, run->dataset, run->label, run->params, std::to_string(run->seed),
                   std::to_string(run->failed_round), run->error});
  table.print(out);
}
template <class T>
void add_unique(std::vector<T>& items, const T& item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}
// The papers' layout: datasets down, learners across, one metric; then each cell's chosen params.
void print_paper_table(const std::vector<SummaryRow>& rows, const std::string& metric, std::ostream& out) {
  std::vector<std::string> datasets, learners;
  for (const auto& row : rows) add_unique(datasets, row.dataset), add_unique(learners, row.learner);
  std::vector<std::string> header{"dataset"};
  header.insert(header.end(), learners.begin(), learners.end());
  TextTable table(header);
  TextTable chosen({"dataset", "learner", "chosen params"});
  for (const auto& dataset : datasets) {
    std::vector<std::string> cells{dataset};
    for (const auto& learner : learners) {
      const auto row = std::find_if(rows.begin(), rows.end(),
                                    [&](const SummaryRow& r) { return r.dataset == dataset && r.learner == learner; });
      std::string cell = "-";
      if (row != rows.end()) {
        chosen.add_row({dataset, learner, row->params});
        const auto m = std::find(row->metric_names.begin(), row->metric_names.end(), metric);
        if (m != row->metric_names.end()) {
          const auto i = static_cast<std::size_t>(m - row->metric_names.begin());
          cell = mean_std_text(metric, row->means[i], row->stds[i]);
        }
      }
      cells.push_back(cell);
    }
    table.add_row(std::move(cells));
  }
  out << metric << ":\n";
  table.print(out);
  out << '\n';
  chosen.print(out);
}

// One line per dataset, learner and chosen grid point: every metric, throughput and memory.
void print_rows(const std::vector<SummaryRow>& rows, std::ostream& out) {
  std::vector<std::string> header{"dataset", "learner", "params", "seeds"};
  std::vector<std::string> names;
  for (const auto& row : rows)
    for (const auto& n : row.metric_names) add_unique(names, n);
  header.insert(header.end(), names.begin(), names.end());
  header.insert(header.end(), {"rounds/s", "peak MB"});
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
      cells.push_back(mean_std_text(n, row.means[i], row.stds[i]));
    }
    cells.push_back(throughput_text(row.rounds_per_second));
    cells.push_back(std::isnan(row.peak_rss_mb) ? std::string("-") : std::to_string(std::llround(row.peak_rss_mb)));
    table.add_row(std::move(cells));
  }
  table.print(out);
}
}  // namespace

std::string no_such_metric(const std::string& metric, const std::vector<RunSummary>& runs) {
  std::vector<std::string> names;
  for (const auto& run : runs)
    for (const auto& [name, value] : run.metrics) add_unique(names, name);
  std::string known;
  for (const auto& name : names) known += (known.empty() ? " " : ", ") + name;
  return "no run has the final metric '" + metric + "'; the runs have:" + (known.empty() ? " none" : known);
}

std::string goal_not_known(const std::string& rules, std::size_t files) {
  return std::string("which way is better is not known: ") +
         (files > 1 ? "the files select by " : "the file selects by ") + rules + "; add --goal max or --goal min";
}

void print_summary(const std::filesystem::path& path, std::ostream& out, SummaryView view,
                   const std::string& table_metric) {
  const h5::Handle file = open_trace_file(path);
  const auto [selection, maximize, per_seed] = read_selection(file);
  const auto runs = read_run_summaries(file);
  // A metric no run has made a table of dashes, as if every run had failed to report it.
  if (view == SummaryView::table && !table_metric.empty() && !runs.empty() &&
      std::none_of(runs.begin(), runs.end(), [&](const RunSummary& run) {
        return std::any_of(run.metrics.begin(), run.metrics.end(),
                           [&](const NamedScalar& m) { return m.name == table_metric; });
      }))
    throw Error("--table " + table_metric, path.string() + ": " + no_such_metric(table_metric, runs));
  const auto rows = summarize(runs, selection, maximize, view == SummaryView::every_grid_point, per_seed);
  const auto total = h5::read_int_attribute(file, schema::root::runs_total);
  std::vector<const RunSummary*> failed;
  for (const auto& run : runs)
    if (run.status == schema::status::failed) failed.push_back(&run);
  out << path.string() << ": " << runs.size() - failed.size() << " of " << total << " runs complete";
  if (!failed.empty()) out << ", " << failed.size() << " failed";
  if (h5::has_attribute(file, schema::root::shard))
    out << " (shard " << h5::read_string_attribute(file, schema::root::shard) << ")";
  out << "; "
      << (view == SummaryView::every_grid_point
              ? "every grid point"
              : "grid point chosen by " +
                    std::string(maximize ? schema::selection::maximize : schema::selection::minimize) +
                    (per_seed ? " " : " mean ") + selection + (per_seed ? " on each seed" : ""))
      << "; mean (std) over seeds\n\n";
  if (view == SummaryView::table)
    print_paper_table(rows, table_metric.empty() ? selection : table_metric, out);
  else
    print_rows(rows, out);
  print_failed_runs(failed, out);
}

}  // namespace glimpse
