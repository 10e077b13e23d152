#include "report.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "glimpse/error.hpp"
#include "glimpse/random.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "table_export.hpp"
#include "text_table.hpp"
#include "trace_reading.hpp"

namespace glimpse {

double paired_t_test(const std::vector<double>& differences) {
  const auto n = static_cast<double>(differences.size());
  if (differences.size() < 2) return 1.0;
  const double mean = std::accumulate(differences.begin(), differences.end(), 0.0) / n;
  double squares = 0.0;
  for (const double d : differences) squares += (d - mean) * (d - mean);
  const double sd = std::sqrt(squares / (n - 1));
  if (!(sd > 0.0)) return mean == 0.0 ? 1.0 : 0.0;  // identical differences: a sure difference, or none
  const double t = mean / (sd / std::sqrt(n));
  return 2.0 * boost::math::cdf(boost::math::complement(boost::math::students_t(n - 1), std::abs(t)));
}

std::vector<double> ranks(const std::vector<double>& values, bool maximize) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return maximize ? values[a] > values[b] : values[a] < values[b];
  });
  std::vector<double> result(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double shared = (static_cast<double>(i + j) / 2.0) + 1.0;  // average of ranks i+1 .. j+1
    for (std::size_t m = i; m <= j; ++m) result[order[m]] = shared;
    i = j + 1;
  }
  return result;
}

namespace {

struct FileRuns {
  std::string name;  // how its learners are told apart when several files are compared
  std::vector<RunSummary> runs;
  std::vector<SelectedRuns> selected;
  std::string selection;
  bool maximize = true;
};

// Which way is better for `metric`: --goal when given, else the goal of a file that selects by it. A metric no file
// selects by has no known direction; taking the first file's goal bolded and ranked the worst learner first whenever
// the two point opposite ways (mistakes tabulated from a file selected by accuracy).
bool better_is_higher(const std::string& metric, const std::vector<FileRuns>& files, const ReportOptions& options) {
  if (options.maximize) return *options.maximize;
  std::string rules;
  for (const auto& f : files) {
    if (f.selection == metric) return f.maximize;
    const std::string rule = f.selection + " (" + (f.maximize ? "max" : "min") + ")";
    if (rules.find(rule) == std::string::npos) rules += (rules.empty() ? "" : ", ") + rule;
  }
  throw Error("--metric " + metric, goal_not_known(rules, files.size()));
}

std::vector<FileRuns> read_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<FileRuns> files;
  for (const auto& path : paths) {
    const h5::Handle file = open_trace_file(path);
    FileRuns f;
    f.name = path.filename().string();
    const SelectionRule rule = read_selection(file);
    f.selection = rule.metric;
    f.maximize = rule.maximize;
    f.runs = read_run_summaries(file);
    files.push_back(std::move(f));
    files.back().selected = select_runs(files.back().runs, rule.metric, rule.maximize, false, rule.per_seed);
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (files[i].name == files[j].name) files[i].name = paths[i].string(), files[j].name = paths[j].string();
  return files;
}

template <class T>
std::size_t index_of(std::vector<T>& items, const T& item) {
  const auto it = std::find(items.begin(), items.end(), item);
  if (it != items.end()) return static_cast<std::size_t>(it - items.begin());
  items.push_back(item);
  return items.size() - 1;
}

// The 95% percentile interval of the mean over `resamples` bootstrap resamples; the generator's seed is fixed,
// so a report is reproducible.
std::pair<double, double> bootstrap_interval(const std::vector<double>& values, std::int64_t resamples) {
  Rng rng(0x9e3779b97f4a7c15ULL);
  std::vector<double> means(static_cast<std::size_t>(resamples));
  for (auto& mean : means) {
    double sum = 0.0;
    for (std::size_t i = 0; i < values.size(); ++i) sum += values[rng.below(values.size())];
    mean = sum / static_cast<double>(values.size());
  }
  std::sort(means.begin(), means.end());
  const auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(std::floor(q * static_cast<double>(means.size() - 1) + 0.5));
    return means[k];
  };
  return {at(0.025), at(0.975)};
}

void mark_best_and_ties(MetricReport& report, double alpha) {
  for (auto& row : report.cells) {
    ReportCell* best = nullptr;
    for (auto& cell : row)
      if (cell && !std::isnan(cell->mean) &&
          (!best || (report.maximize ? cell->mean > best->mean : cell->mean < best->mean)))
        best = &*cell;
    if (!best) continue;
    best->best = true;
    for (auto& cell : row) {
      if (!cell || &*cell == best || std::isnan(cell->mean)) continue;
      std::vector<double> differences;  // over the seeds both have
      for (std::size_t i = 0; i < cell->seeds.size(); ++i) {
        const auto j = std::find(best->seeds.begin(), best->seeds.end(), cell->seeds[i]);
        if (j != best->seeds.end()) differences.push_back(cell->values[i] - best->values[j - best->seeds.begin()]);
      }
      cell->untested = differences.size() < 2;
      cell->p_value = cell->untested ? std::numeric_limits<double>::quiet_NaN() : paired_t_test(differences);
      cell->tied_with_best = !cell->untested && cell->p_value >= alpha;
    }
  }
}

void rank_across_datasets(MetricReport& report, double alpha) {
  const std::size_t k = report.learners.size();
  if (k < 2) return;
  std::vector<double> sums(k, 0.0);
  for (const auto& row : report.cells) {
    if (!std::all_of(row.begin(), row.end(), [](const auto& c) { return c && !std::isnan(c->mean); })) continue;
    std::vector<double> means;
    for (const auto& cell : row) means.push_back(cell->mean);
    const auto r = ranks(means, report.maximize);
    for (std::size_t j = 0; j < k; ++j) sums[j] += r[j];
    ++report.ranked_datasets;
  }
  if (report.ranked_datasets < 2) {
    report.ranked_datasets = 0;
    return;
  }
  const auto n = static_cast<double>(report.ranked_datasets), kk = static_cast<double>(k);
  double squares = 0.0;
  for (const double s : sums) {
    report.average_ranks.push_back(s / n);
    squares += (s / n) * (s / n);
  }
  report.friedman_statistic = 12.0 * n / (kk * (kk + 1.0)) * (squares - kk * (kk + 1.0) * (kk + 1.0) / 4.0);
  report.friedman_p = boost::math::cdf(
      boost::math::complement(boost::math::chi_squared(kk - 1.0), std::max(report.friedman_statistic, 0.0)));
  const auto control = static_cast<std::size_t>(
      std::min_element(report.average_ranks.begin(), report.average_ranks.end()) - report.average_ranks.begin());
  report.control = report.learners[control];
  const double se = std::sqrt(kk * (kk + 1.0) / (6.0 * n));
  for (std::size_t j = 0; j < k; ++j) {
    if (j == control) continue;
    HolmComparison c;
    c.learner = report.learners[j];
    c.z = (report.average_ranks[j] - report.average_ranks[control]) / se;
    c.p_value = std::erfc(std::abs(c.z) / std::sqrt(2.0));  // two-sided, standard normal
    report.holm.push_back(c);
  }
  std::stable_sort(report.holm.begin(), report.holm.end(),
                   [](const HolmComparison& a, const HolmComparison& b) { return a.p_value < b.p_value; });
  bool rejecting = true;  // step down: stop at the first hypothesis kept
  for (std::size_t i = 0; i < report.holm.size(); ++i) {
    auto& c = report.holm[i];
    c.threshold = alpha / static_cast<double>(report.holm.size() - i);
    rejecting = rejecting && c.p_value <= c.threshold;
    c.significant = rejecting;
  }
}

}  // namespace

std::vector<MetricReport> build_report(const std::vector<std::filesystem::path>& paths, const ReportOptions& options) {
  if (paths.empty()) throw Error("glimpse report", "expected at least one trace file");
  const auto files = read_files(paths);
  std::vector<std::string> metrics = options.metrics;
  if (metrics.empty())
    for (const auto& f : files) index_of(metrics, f.selection);
  std::vector<MetricReport> reports;
  for (const auto& metric : metrics) {
    MetricReport report;
    report.metric = metric;
    bool found = false;
    for (const auto& f : files)
      for (const auto& chosen : f.selected) {
        const auto d = index_of(report.datasets, chosen.dataset);
        const auto l =
            index_of(report.learners, files.size() > 1 ? chosen.learner + " [" + f.name + "]" : chosen.learner);
        if (report.cells.size() <= d) report.cells.resize(d + 1);
        for (auto& row : report.cells) row.resize(report.learners.size());
        ReportCell cell;
        cell.params = chosen.params;
        std::vector<std::pair<std::int64_t, double>> by_seed;
        for (const auto* run : chosen.runs) by_seed.emplace_back(run->seed, final_metric(*run, metric));
        std::sort(by_seed.begin(), by_seed.end());
        for (const auto& [seed, value] : by_seed) cell.seeds.push_back(seed), cell.values.push_back(value);
        const auto spread = mean_and_std(cell.values);
        cell.mean = spread.mean;
        cell.std = spread.std;
        found = found || !std::isnan(cell.mean);
        // Resampling one seed gives an interval of width 0: none is shown (as no std is).
        if (options.bootstrap > 0 && cell.values.size() > 1 && !std::isnan(cell.mean))
          std::tie(cell.ci_low, cell.ci_high) = bootstrap_interval(cell.values, options.bootstrap);
        else
          cell.ci_low = cell.ci_high = std::numeric_limits<double>::quiet_NaN();
        report.cells[d][l] = std::move(cell);
      }
    if (!found) {
      std::vector<RunSummary> every_run;
      for (const auto& f : files) every_run.insert(every_run.end(), f.runs.begin(), f.runs.end());
      throw Error(paths.front().string(), no_such_metric(metric, every_run));
    }
    report.maximize = better_is_higher(metric, files, options);
    mark_best_and_ties(report, options.alpha);
    rank_across_datasets(report, options.alpha);
    reports.push_back(std::move(report));
  }
  return reports;
}

ReportFormat parse_report_format(const std::string& name) {
  if (name == "md" || name == "markdown") return ReportFormat::markdown;
  if (name == "latex" || name == "tex") return ReportFormat::latex;
  if (name == "csv") return ReportFormat::csv;
  throw Error("--format", "expected md, latex or csv, got '" + name + "'");
}

namespace {

std::string latex_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '_' || c == '%' || c == '&' || c == '#' || c == '$' || c == '{' || c == '}') out += '\\';
    out += c;
  }
  return out;
}

bool any_untested(const MetricReport& r) {
  for (const auto& row : r.cells)
    for (const auto& cell : row)
      if (cell && cell->untested) return true;
  return false;
}

bool any_single_seed(const MetricReport& r) {
  for (const auto& row : r.cells)
    for (const auto& cell : row)
      if (cell && cell->values.size() == 1 && !std::isnan(cell->mean)) return true;
  return false;
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

// A CSV field: empty for NaN (no std or interval from one seed, a metric the runs lack).
std::string csv_number(double v) { return std::isnan(v) ? std::string() : number(v); }

std::string cell_text(const MetricReport& r, const ReportCell& c, const ReportOptions& options) {
  if (std::isnan(c.mean)) return "-";
  const std::string mean = format_metric(r.metric, c.mean, false);
  if (options.bootstrap > 0 && std::isnan(c.ci_low)) return mean + " [-]";
  if (options.bootstrap > 0)
    return mean + " [" + format_metric(r.metric, c.ci_low, false) + ", " + format_metric(r.metric, c.ci_high, false) +
           "]";
  return mean + " (" + format_metric(r.metric, c.std, true) + ")";
}

void write_markdown(const MetricReport& r, const ReportOptions& options, std::ostream& out) {
  out << "## " << r.metric << " (" << (r.maximize ? "higher" : "lower") << " is better)\n\n| dataset |";
  for (const auto& l : r.learners) out << ' ' << l << " |";
  out << "\n|---|";
  for (std::size_t j = 0; j < r.learners.size(); ++j) out << "---|";
  out << '\n';
  for (std::size_t d = 0; d < r.datasets.size(); ++d) {
    out << "| " << r.datasets[d] << " |";
    for (const auto& cell : r.cells[d]) {
      if (!cell) {
        out << " - |";
        continue;
      }
      const std::string text = cell_text(r, *cell, options);
      out << ' '
          << (cell->best             ? "**" + text + "**"
              : cell->tied_with_best ? "_" + text + "_"
                                     : text)
          << (cell->untested ? " †" : "") << " |";
    }
    out << '\n';
  }
  out << "\nMean "
      << (options.bootstrap > 0 ? "[95% bootstrap interval, " + std::to_string(options.bootstrap) + " resamples]"
                                : std::string("(std)"))
      << " over seeds at the chosen grid point. **Bold**: best per dataset; _italic_: not significantly different "
         "from the best (two-sided paired t-test over shared seeds, p >= "
      << number(options.alpha) << ")"
      << (any_untested(r) ? "; †: fewer than two seeds shared with the best, so not tested" : "")
      << (any_single_seed(r) ? "; " + std::string(options.bootstrap > 0 ? "[-]" : "(-)") + ": one seed, no spread"
                             : std::string())
      << ".\n\n| dataset | learner | chosen params | seeds |\n|---|---|---|---|\n";
  for (std::size_t d = 0; d < r.datasets.size(); ++d)
    for (std::size_t l = 0; l < r.learners.size(); ++l)
      if (const auto& cell = r.cells[d][l])
        out << "| " << r.datasets[d] << " | " << r.learners[l] << " | `" << cell->params << "` | "
            << cell->values.size() << " |\n";
  if (r.ranked_datasets == 0) {
    out << "\n(No ranks across datasets: they need at least 2 datasets on which every learner ran.)\n\n";
    return;
  }
  out << "\nAverage ranks over " << r.ranked_datasets
      << " datasets (1 = best):\n\n| learner | average rank |\n|---|---|\n";
  for (std::size_t l = 0; l < r.learners.size(); ++l)
    out << "| " << r.learners[l] << " | " << number(r.average_ranks[l]) << " |\n";
  out << "\nFriedman test: chi2(" << r.learners.size() - 1 << ") = " << number(r.friedman_statistic)
      << ", p = " << number(r.friedman_p)
      << (r.friedman_p < options.alpha ? " (the learners differ)" : " (no difference shown)")
      << ".\nHolm's step-down comparisons with the best-ranked learner, " << r.control
      << " (z from the average ranks, two-sided):\n\n| learner | z | p | Holm threshold | differs "
         "|\n|---|---|---|---|---|\n";
  for (const auto& c : r.holm)
    out << "| " << c.learner << " | " << number(c.z) << " | " << number(c.p_value) << " | " << number(c.threshold)
        << " | " << (c.significant ? "yes" : "no") << " |\n";
  out << '\n';
}

void write_latex(const MetricReport& r, const ReportOptions& options, std::ostream& out) {
  out << "% " << r.metric << " (" << (r.maximize ? "higher" : "lower")
      << " is better); bold: best per dataset; underlined: not significantly different from the best (paired t-test, "
      << number(options.alpha) << ")\n\\begin{tabular}{l" << std::string(r.learners.size(), 'c')
      << "}\n\\hline\nDataset";
  for (const auto& l : r.learners) out << " & " << latex_escape(l);
  out << " \\\\\n\\hline\n";
  for (std::size_t d = 0; d < r.datasets.size(); ++d) {
    out << latex_escape(r.datasets[d]);
    for (const auto& cell : r.cells[d]) {
      if (!cell) {
        out << " & --";
        continue;
      }
      const std::string text = latex_escape(cell_text(r, *cell, options));
      out << " & "
          << (cell->best             ? "\\textbf{" + text + "}"
              : cell->tied_with_best ? "\\underline{" + text + "}"
                                     : text)
          << (cell->untested ? "$^\\dagger$" : "");
    }
    out << " \\\\\n";
  }
  if (r.ranked_datasets > 0) {
    out << "\\hline\nAvg. rank";
    for (const double rank : r.average_ranks) out << " & " << number(rank);
    out << " \\\\\n";
  }
  out << "\\hline\n\\end{tabular}\n";
  if (any_untested(r)) out << "% $^\\dagger$: fewer than two seeds shared with the best, so not tested\n";
  if (any_single_seed(r)) out << "% " << (options.bootstrap > 0 ? "[-]" : "(-)") << ": one seed, no spread\n";
  if (r.ranked_datasets > 0)
    out << "% Friedman chi2(" << r.learners.size() - 1 << ") = " << number(r.friedman_statistic)
        << ", p = " << number(r.friedman_p) << "\n";
  out << '\n';
}

}  // namespace

void write_report(const std::vector<MetricReport>& reports, const ReportOptions& options, ReportFormat format,
                  std::ostream& out) {
  if (format == ReportFormat::csv)
    out << "metric,dataset,learner,params,seeds,mean,std,ci_low,ci_high,best,tied_with_best,p_value,average_rank\n";
  for (const auto& r : reports) {
    if (format == ReportFormat::markdown) write_markdown(r, options, out);
    if (format == ReportFormat::latex) write_latex(r, options, out);
    if (format != ReportFormat::csv) continue;
    for (std::size_t d = 0; d < r.datasets.size(); ++d)
      for (std::size_t l = 0; l < r.learners.size(); ++l) {
        const auto& c = r.cells[d][l];
        if (!c) continue;
        out << csv_field(r.metric) << ',' << csv_field(r.datasets[d]) << ',' << csv_field(r.learners[l]) << ','
            << csv_field(c->params) << ',' << c->values.size() << ',' << csv_number(c->mean) << ',' << csv_number(c->std)
            << ',' << (options.bootstrap > 0 ? csv_number(c->ci_low) + "," + csv_number(c->ci_high) : std::string(","))
            << ',' << c->best << ',' << c->tied_with_best << ',' << (c->untested ? std::string() : number(c->p_value))
            << ',' << (r.ranked_datasets > 0 ? number(r.average_ranks[l]) : std::string()) << '\n';
      }
  }
}

}  // namespace glimpse
