// soba: hand-computed first updates and its invariants.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Soba, HandComputedFirstUpdateDiagonalAndFull) {
  // K = 3, x = (1, 2), a = 1, gamma = 0.3: all scores 0, greedy 0, P(0) = 0.7 + 0.1 = 0.8; y~ = y = 0, ybar = 1,
  // m = 0 (W = 0), so the round updates. Diagonal: w_0j = x_j / (a p + x_j^2); full: w_0 = x / (a p + 2 |x|^2).
  for (const std::string matrix : {"diag", "full"}) {
    SCOPED_TRACE(matrix);
    auto learner = make<Learner>("soba", {{"gamma", "0.3"}, {"matrix", matrix}, {"precision", "double"}});
    learner->reset({10, 2, 3}, 3);
    const DenseRow x({1, 2});
    Prediction pred = prediction_for(3);
    learner->predict(x.view(), pred);
    EXPECT_EQ(pred.predicted, 0);
    pred.proposed = 0;
    learner->learn(x.view(), pred, CorrectnessFeedback{true});
    const auto w = columns_of(*learner, 3);
    const double expect0 = matrix == "diag" ? 1 / 1.8 : 1 / 10.8, expect1 = matrix == "diag" ? 2 / 4.8 : 2 / 10.8;
    EXPECT_NEAR(w[0][0], expect0, 1e-12);
    EXPECT_NEAR(w[1][0], expect1, 1e-12);
    EXPECT_NEAR(w[0][1], -expect0, 1e-12);
    EXPECT_NEAR(w[1][1], -expect1, 1e-12);
    EXPECT_EQ(w[0][2], 0.0);
    EXPECT_EQ(w[1][2], 0.0);
  }
}

TEST(Soba, WrongProposalsChangeNothingAndTheMarginStaysNonNegative) {
  for (const std::string matrix : {"diag", "full"}) {
    SCOPED_TRACE(matrix);
    auto learner = make<Learner>("soba", {{"gamma", "0.2"}, {"matrix", matrix}, {"precision", "double"}});
    const int k = 4, d = 3;
    learner->reset({100, d, k}, 5);
    Rng rng(11);
    Prediction pred = prediction_for(k);
    for (int t = 0; t < 200; ++t) {
      const DenseRow x(
          {static_cast<Feature>(rng.normal()), static_cast<Feature>(rng.normal()), static_cast<Feature>(rng.normal())});
      learner->predict(x.view(), pred);
      const bool right = rng.below(2) == 0;
      if (!right) {
        const auto before = pred.scores;
        learner->learn(x.view(), pred, CorrectnessFeedback{false});
        Prediction again = prediction_for(k);
        learner->evaluate(x.view(), again);
        ASSERT_EQ(again.scores, before);
      } else {
        learner->learn(x.view(), pred, CorrectnessFeedback{true});
      }
    }
    MetricResults report;
    dynamic_cast<const RunReporter&>(*learner).report(report);
    ASSERT_EQ(report.scalars.size(), 1u);
    EXPECT_EQ(report.scalars[0].name, "cumulative_margin");
    EXPECT_GE(report.scalars[0].value, 0.0);
  }
}

}  // namespace
}  // namespace glimpse::testing
