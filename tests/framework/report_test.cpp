// glimpse report on hand-made trace files whose means, t-tests, ranks and Friedman/Holm results are worked out
// by hand below.
#include "report.hpp"

#include <cmath>
#include <sstream>

#include "hdf5.hpp"
#include "support.hpp"
#include "trace_schema.hpp"

namespace glimpse::test {
namespace {

struct FakeRun {
  std::string dataset, label;
  std::int64_t seed;
  double accuracy;
};

// A trace file with just what reports read: the selection rule and, per run, its identity and final metric.
// With `with_mistakes`, each run also has a final metric "mistakes", 100 (1 - accuracy): not the selection metric.
void write_trace(const std::filesystem::path& path, const std::vector<FakeRun>& runs, bool with_mistakes = false) {
  const h5::Handle f = h5::create_file(path);
  h5::write_attribute(f, schema::root::schema_version, std::string("1.4.0"));
  h5::write_attribute(f, schema::root::selection_metric, std::string("online_accuracy"));
  h5::write_attribute(f, schema::root::selection_goal, std::string(schema::selection::maximize));
  h5::write_attribute(f, schema::root::runs_total, static_cast<std::int64_t>(runs.size()));
  const h5::Handle group = h5::create_group(f, schema::root::runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const h5::Handle run = h5::create_group(group, run_id(static_cast<std::int64_t>(i), 100));
    h5::write_attribute(run, schema::run::dataset, runs[i].dataset);
    h5::write_attribute(run, schema::run::learner, runs[i].label);
    h5::write_attribute(run, schema::run::label, runs[i].label);
    h5::write_attribute(run, schema::run::params, std::string("{\"eta\":1}"));
    h5::write_attribute(run, schema::run::status, std::string(schema::status::complete));
    h5::write_attribute(run, schema::run::seed, runs[i].seed);
    h5::write_attribute(run, schema::run::grid_point, std::int64_t{0});
    h5::write_attribute(run, schema::run::rounds, std::int64_t{100});
    h5::write_attribute(run, schema::run::seconds, 0.5);
    const h5::Handle summary = h5::create_group(run, schema::run::summary_group);
    h5::write_attribute(summary, "online_accuracy", runs[i].accuracy);
    if (with_mistakes) h5::write_attribute(summary, "mistakes", 100.0 * (1.0 - runs[i].accuracy));
  }
}

// d1: A best; C close to A (not significant); B far below (significant). d2: B best, then A, then C.
std::vector<FakeRun> two_datasets(double shift_a = 0.0, std::int64_t first_seed = 1) {
  std::vector<FakeRun> runs;
  const auto add = [&](const std::string& d, const std::string& l, std::vector<double> v) {
    for (std::size_t s = 0; s < v.size(); ++s) runs.push_back({d, l, first_seed + static_cast<std::int64_t>(s), v[s]});
  };
  add("d1", "A", {0.90 + shift_a, 0.80 + shift_a, 0.85 + shift_a});
  add("d1", "B", {0.50, 0.52, 0.49});
  add("d1", "C", {0.88, 0.79, 0.86});
  add("d2", "A", {0.60, 0.61, 0.62});
  add("d2", "B", {0.70, 0.71, 0.72});
  add("d2", "C", {0.50, 0.51, 0.52});
  return runs;
}

// Two-sided p of Student's t with 2 degrees of freedom, in closed form: 1 - |t| / sqrt(t^2 + 2).
double p_df2(const std::vector<double>& d) {
  const double mean = (d[0] + d[1] + d[2]) / 3;
  double squares = 0;
  for (const double x : d) squares += (x - mean) * (x - mean);
  const double t = mean / (std::sqrt(squares / 2) / std::sqrt(3.0));
  return 1 - std::abs(t) / std::sqrt(t * t + 2);
}

TEST(Report, MeansTTestsRanksFriedmanAndHolmByHand) {
  TempDir dir;
  write_trace(dir.path() / "a.h5", two_datasets());
  const auto reports = build_report({dir.path() / "a.h5"}, {});
  ASSERT_EQ(reports.size(), 1u);
  const MetricReport& r = reports[0];
  EXPECT_EQ(r.metric, "online_accuracy");
  EXPECT_TRUE(r.maximize);
  EXPECT_EQ(r.datasets, (std::vector<std::string>{"d1", "d2"}));
  EXPECT_EQ(r.learners, (std::vector<std::string>{"A", "B", "C"}));
  const ReportCell& a1 = *r.cells[0][0];
  EXPECT_NEAR(a1.mean, 0.85, 1e-12);
  EXPECT_NEAR(a1.std, 0.05, 1e-12);  // deviations 0.05, -0.05, 0
  EXPECT_TRUE(a1.best);
  const ReportCell &b1 = *r.cells[0][1], &c1 = *r.cells[0][2];
  EXPECT_NEAR(c1.p_value, p_df2({0.88 - 0.90, 0.79 - 0.80, 0.86 - 0.85}), 1e-9);  // 0.529
  EXPECT_TRUE(c1.tied_with_best);
  EXPECT_NEAR(b1.p_value, p_df2({0.50 - 0.90, 0.52 - 0.80, 0.49 - 0.85}), 1e-9);  // 0.0102
  EXPECT_LT(b1.p_value, 0.05);
  EXPECT_FALSE(b1.tied_with_best);
  EXPECT_TRUE(r.cells[1][1]->best);

  // Ranks d1: A 1, C 2, B 3; d2: B 1, A 2, C 3. Average: A 1.5, B 2, C 2.5.
  EXPECT_EQ(r.ranked_datasets, 2);
  EXPECT_EQ(r.average_ranks, (std::vector<double>{1.5, 2.0, 2.5}));
  // Friedman: 12 N / (k (k+1)) * (sum R^2 - k (k+1)^2 / 4) = 2 * (12.5 - 12) = 1; chi2(2) tail = exp(-1/2).
  EXPECT_NEAR(r.friedman_statistic, 1.0, 1e-12);
  EXPECT_NEAR(r.friedman_p, std::exp(-0.5), 1e-9);
  // Holm against A: se = sqrt(k (k+1) / (6 N)) = 1, so z = rank difference; C first (smaller p) at alpha/2.
  EXPECT_EQ(r.control, "A");
  ASSERT_EQ(r.holm.size(), 2u);
  EXPECT_EQ(r.holm[0].learner, "C");
  EXPECT_NEAR(r.holm[0].z, 1.0, 1e-12);
  EXPECT_NEAR(r.holm[0].p_value, std::erfc(1.0 / std::sqrt(2.0)), 1e-12);  // 0.3173
  EXPECT_NEAR(r.holm[0].threshold, 0.025, 1e-12);
  EXPECT_NEAR(r.holm[1].threshold, 0.05, 1e-12);
  EXPECT_FALSE(r.holm[0].significant);
  EXPECT_FALSE(r.holm[1].significant);

  std::ostringstream markdown, latex, csv;
  write_report(reports, {}, ReportFormat::markdown, markdown);
  EXPECT_NE(markdown.str().find("| d1 | **85.0% (5.0)** | 50.3% (1.5) | _84.3% (4.7)_ |"), std::string::npos)
      << markdown.str();
  EXPECT_NE(markdown.str().find("Friedman test: chi2(2) = 1, p = 0.606531"), std::string::npos);
  write_report(reports, {}, ReportFormat::latex, latex);
  EXPECT_NE(latex.str().find("d1 & \\textbf{85.0\\% (5.0)} & 50.3\\% (1.5) & \\underline{84.3\\% (4.7)} \\\\"),
            std::string::npos)
      << latex.str();
  EXPECT_NE(latex.str().find("Avg. rank & 1.5 & 2 & 2.5 \\\\"), std::string::npos);
  write_report(reports, {}, ReportFormat::csv, csv);
  EXPECT_NE(csv.str().find("online_accuracy,d1,A,\"{\"\"eta\"\":1}\",3,0.85,0.05,,,1,0,1,1.5\n"), std::string::npos)
      << csv.str();
}

TEST(Report, TwoFilesAreComparedAsOneTableAndBootstrapIntervalsAreReproducible) {
  TempDir dir;
  write_trace(dir.path() / "old.h5", two_datasets());
  write_trace(dir.path() / "new.h5", two_datasets(0.01));
  ReportOptions options;
  options.bootstrap = 2000;
  const auto reports = build_report({dir.path() / "old.h5", dir.path() / "new.h5"}, options);
  const MetricReport& r = reports[0];
  ASSERT_EQ(r.learners.size(), 6u);
  EXPECT_EQ(r.learners[0], "A [old.h5]");
  EXPECT_EQ(r.learners[3], "A [new.h5]");
  // The new A is 0.01 better on every seed of d1: a constant difference is a sure one (p = 0).
  EXPECT_TRUE(r.cells[0][3]->best);
  EXPECT_EQ(r.cells[0][0]->p_value, 0.0);
  EXPECT_FALSE(r.cells[0][0]->tied_with_best);
  for (const auto& row : r.cells)
    for (const auto& cell : row) {
      const auto [low, high] = std::minmax_element(cell->values.begin(), cell->values.end());
      EXPECT_LE(*low - 1e-12, cell->ci_low);  // a mean of equal values may differ in the last bit
      EXPECT_LE(cell->ci_low, cell->mean);
      EXPECT_LE(cell->mean, cell->ci_high);
      EXPECT_LE(cell->ci_high, *high + 1e-12);
    }
  const auto again = build_report({dir.path() / "old.h5", dir.path() / "new.h5"}, options);
  EXPECT_EQ(again[0].cells[0][0]->ci_low, r.cells[0][0]->ci_low);
  EXPECT_EQ(again[0].cells[0][0]->ci_high, r.cells[0][0]->ci_high);
}

TEST(Report, ALearnerSharingNoSeedsWithTheBestIsMarkedUntestedNotDifferent) {
  TempDir dir;
  write_trace(dir.path() / "old.h5", two_datasets());
  write_trace(dir.path() / "new.h5", two_datasets(0.01, 11));  // seeds 11-13: none shared with old.h5's 1-3
  const auto reports = build_report({dir.path() / "old.h5", dir.path() / "new.h5"}, {});
  const MetricReport& r = reports[0];
  ASSERT_EQ(r.learners.size(), 6u);
  EXPECT_TRUE(r.cells[0][3]->best);  // d1: A [new.h5]
  for (const std::size_t old_learner : {0, 1, 2}) {
    const ReportCell& cell = *r.cells[0][old_learner];
    EXPECT_TRUE(cell.untested) << old_learner;
    EXPECT_FALSE(cell.tied_with_best) << old_learner;
    EXPECT_TRUE(std::isnan(cell.p_value)) << old_learner;
  }
  // Within new.h5 the seeds are shared: C is tied with A as in one file, B differs.
  EXPECT_FALSE(r.cells[0][5]->untested);
  EXPECT_TRUE(r.cells[0][5]->tied_with_best);
  EXPECT_FALSE(r.cells[0][4]->tied_with_best);
  std::ostringstream markdown, csv;
  write_report(reports, {}, ReportFormat::markdown, markdown);
  write_report(reports, {}, ReportFormat::csv, csv);
  EXPECT_NE(markdown.str().find("| 85.0% (5.0) † |"), std::string::npos) << markdown.str();
  EXPECT_NE(markdown.str().find("†: fewer than two seeds shared with the best, so not tested"), std::string::npos);
  EXPECT_NE(csv.str().find(",0,0,,"), std::string::npos) << csv.str();  // best, tied, no p-value
}

TEST(Report, OneSeedHasNoSpread) {
  TempDir dir;
  write_trace(dir.path() / "a.h5", {{"d1", "A", 1, 0.9}, {"d1", "B", 1, 0.5}, {"d1", "B", 2, 0.7}});
  const auto reports = build_report({dir.path() / "a.h5"}, {});
  const MetricReport& r = reports[0];
  ASSERT_EQ(r.learners.size(), 2u);
  EXPECT_DOUBLE_EQ(r.cells[0][0]->mean, 0.9);
  EXPECT_TRUE(std::isnan(r.cells[0][0]->std));  // one value: no sample std, not 0
  EXPECT_DOUBLE_EQ(r.cells[0][1]->std, std::sqrt(0.02));  // (0.5, 0.7): squares 0.02 over n - 1 = 1
  std::ostringstream markdown, latex, csv, bootstrap;
  write_report(reports, {}, ReportFormat::markdown, markdown);
  write_report(reports, {}, ReportFormat::latex, latex);
  write_report(reports, {}, ReportFormat::csv, csv);
  EXPECT_NE(markdown.str().find("| **90.0% (-)** | 60.0% (14.1) † |"), std::string::npos) << markdown.str();
  EXPECT_NE(markdown.str().find("(-): one seed, no spread"), std::string::npos) << markdown.str();
  EXPECT_NE(latex.str().find("% (-): one seed, no spread"), std::string::npos) << latex.str();
  EXPECT_NE(csv.str().find(",1,0.9,,,,1,"), std::string::npos) << csv.str();  // seeds, mean, no std, no interval
  ReportOptions with_bootstrap;
  with_bootstrap.bootstrap = 200;
  write_report(build_report({dir.path() / "a.h5"}, with_bootstrap), with_bootstrap, ReportFormat::markdown, bootstrap);
  EXPECT_NE(bootstrap.str().find("| **90.0% [-]** |"), std::string::npos) << bootstrap.str();
}

TEST(Report, AMetricNoFileSelectsByIsTabulatedOnlyWithAGoal) {
  TempDir dir;
  write_trace(dir.path() / "a.h5", two_datasets(), true);
  ReportOptions options;
  options.metrics = {"mistakes"};
  // The file's goal (max) would make the learner with the most mistakes the best.
  EXPECT_EQ(error_of([&] { build_report({dir.path() / "a.h5"}, options); }),
            "--metric mistakes: which way is better is not known: the file selects by online_accuracy (max); add "
            "--goal max or --goal min");
  options.maximize = false;
  const MetricReport by_mistakes = build_report({dir.path() / "a.h5"}, options)[0];
  const MetricReport by_accuracy = build_report({dir.path() / "a.h5"}, {})[0];
  EXPECT_FALSE(by_mistakes.maximize);
  EXPECT_TRUE(by_accuracy.maximize);
  // Fewest mistakes is highest accuracy: the same best cells and the same ranks.
  ASSERT_EQ(by_mistakes.cells.size(), by_accuracy.cells.size());
  for (std::size_t d = 0; d < by_accuracy.cells.size(); ++d)
    for (std::size_t l = 0; l < by_accuracy.cells[d].size(); ++l)
      EXPECT_EQ(by_mistakes.cells[d][l]->best, by_accuracy.cells[d][l]->best) << d << " " << l;
  EXPECT_TRUE(by_accuracy.cells[0][0]->best);  // d1: A (worked out above)
  EXPECT_EQ(by_mistakes.average_ranks, by_accuracy.average_ranks);
  // The selection metric named explicitly keeps the file's goal.
  options.metrics = {"online_accuracy"};
  options.maximize.reset();
  EXPECT_TRUE(build_report({dir.path() / "a.h5"}, options)[0].maximize);
}

TEST(Report, StatisticsByHandAndClearErrors) {
  EXPECT_EQ(ranks({0.5, 0.9, 0.5, 0.1}, true), (std::vector<double>{2.5, 1.0, 2.5, 4.0}));
  EXPECT_EQ(ranks({0.5, 0.9, 0.5, 0.1}, false), (std::vector<double>{2.5, 4.0, 2.5, 1.0}));
  EXPECT_EQ(paired_t_test({0.1}), 1.0);       // one pair: no test
  EXPECT_EQ(paired_t_test({0.0, 0.0}), 1.0);  // no difference at all
  EXPECT_EQ(paired_t_test({0.2, 0.2}), 0.0);  // the same difference every time
  EXPECT_NEAR(paired_t_test({1.0, 2.0, 3.0}), 1 - 2 * std::sqrt(3.0) / std::sqrt(14.0), 1e-12);  // t = 2 sqrt(3)
  TempDir dir;
  write_trace(dir.path() / "a.h5", two_datasets());
  ReportOptions options;
  options.metrics = {"accuracy"};
  EXPECT_EQ(
      error_of([&] { build_report({dir.path() / "a.h5"}, options); }),
      (dir.path() / "a.h5").string() + ": no run has the final metric 'accuracy'; the runs have: online_accuracy");
  EXPECT_EQ(error_of([&] { build_report({dir.path() / "none.h5"}, {}); }),
            (dir.path() / "none.h5").string() + ": no such file");
  EXPECT_EQ(error_of([] { parse_report_format("html"); }), "--format: expected md, latex or csv, got 'html'");
}

}  // namespace
}  // namespace glimpse::test
