// Containment: a run whose learner throws, returns a non-finite score or diverges fails alone, with its
// message and round recorded; the sweep goes on, the summary lists it, a rerun retries it, --fail-fast stops.
#include <sstream>

#include "hdf5.hpp"
#include "orchestrator.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

class Containment : public ::testing::Test {
 protected:
  // Per seed: perceptron, and the fixture with each fault from round 5 on (2 seeds: 10 runs, 6 failing).
  Protocol protocol = parse_protocol(R"({"name": "faults",
      "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 50, "sigma": 0.3}}],
      "oracle": {"name": "full"},
      "learners": [{"name": "perceptron"},
                   {"name": "misbehaving", "params": {"at_round": 5},
                    "grid": {"fault": ["none", "throw", "nan", "diverge"]}}],
      "metrics": [{"name": "online_accuracy"}], "seeds": 2})",
                                     "faults.json", ".", registry_with_fixture("misbehaving"));
  TempDir dir;
  SweepResult run(bool fail_fast = false, std::ostream* log = nullptr) {
    SweepOptions options;
    options.threads = 2;
    options.output = dir.path() / "f.h5";
    options.fail_fast = fail_fast;
    options.log = log;
    return run_sweep(protocol, options);
  }
};

TEST_F(Containment, FailedRunsAreRecordedWithMessageAndRoundAndTheOthersFinish) {
  std::ostringstream log;
  const auto result = run(false, &log);
  EXPECT_EQ(result.total_runs, 10);
  EXPECT_EQ(result.completed_now, 4);
  ASSERT_EQ(result.failures.size(), 6u);
  EXPECT_FALSE(result.interrupted);
  EXPECT_NE(log.str().find("failed: round 5: the fixture throws as told"), std::string::npos) << log.str();

  const auto runs = read_run_summaries(h5::open_file(result.output, false));
  ASSERT_EQ(runs.size(), 10u);
  std::map<std::string, int> failures_by_kind;
  for (const auto& run : runs) {
    if (run.params.find("\"fault\":\"none\"") != std::string::npos || run.learner == "perceptron") {
      EXPECT_EQ(run.status, "complete") << run.id;
      continue;
    }
    ASSERT_EQ(run.status, "failed") << run.id;
    if (run.params.find("throw") != std::string::npos) {
      EXPECT_EQ(run.failed_round, 5);
      EXPECT_EQ(run.error, "round 5: the fixture throws as told");
      ++failures_by_kind["throw"];
    } else if (run.params.find("nan") != std::string::npos) {
      EXPECT_EQ(run.failed_round, 5);
      EXPECT_NE(run.error.find("score for class 1 is nan"), std::string::npos) << run.error;
      ++failures_by_kind["nan"];
    } else {
      // The score is 1e30^(t-5) in round t: finite up to round 15 (1e300), infinite in round 16.
      EXPECT_EQ(run.failed_round, 16);
      EXPECT_NE(run.error.find("score for class 1 is inf (did its weights diverge?)"), std::string::npos) << run.error;
      ++failures_by_kind["diverge"];
    }
  }
  EXPECT_EQ(failures_by_kind, (std::map<std::string, int>{{"diverge", 2}, {"nan", 2}, {"throw", 2}}));
  const h5::Handle file = h5::open_file(result.output, false);
  EXPECT_EQ(h5::read_int_attribute(file, "runs_complete"), 4);
  EXPECT_EQ(h5::read_int_attribute(file, "runs_failed"), 6);

  std::ostringstream summary;
  print_summary(result.output, summary);
  EXPECT_NE(summary.str().find("4 of 10 runs complete, 6 failed"), std::string::npos) << summary.str();
  EXPECT_NE(summary.str().find("failed runs (left out above"), std::string::npos) << summary.str();
  EXPECT_NE(summary.str().find("the fixture throws as told"), std::string::npos) << summary.str();
}

TEST_F(Containment, ARerunRetriesFailedRunsOnly) {
  run();
  const auto again = run();
  EXPECT_EQ(again.already_complete, 4);
  EXPECT_EQ(again.completed_now, 0);
  EXPECT_EQ(again.failures.size(), 6u);  // the fixture fails the same way again
  EXPECT_EQ(read_run_summaries(h5::open_file(again.output, false)).size(), 10u);
}

TEST_F(Containment, FailFastStopsTheSweepAndKeepsWhatFinished) {
  const auto message = error_of([&] { run(true); });
  EXPECT_NE(message.find("failed: round"), std::string::npos) << message;
  EXPECT_NE(message.find("--fail-fast: stopping the sweep"), std::string::npos) << message;
  const auto runs = read_run_summaries(h5::open_file(dir.path() / "f.h5", false));
  EXPECT_GE(runs.size(), 1u);
  EXPECT_LT(runs.size(), 10u);
  EXPECT_TRUE(std::any_of(runs.begin(), runs.end(), [](const RunSummary& r) { return r.status == "failed"; }));
}

}  // namespace
}  // namespace glimpse::test
