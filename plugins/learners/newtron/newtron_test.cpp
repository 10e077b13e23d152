// newtron: hand-computed rounds, the unbiased gradient estimate, the ball projection.
#include <algorithm>
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Newtron, HandComputedRightAndWrongFirstRounds) {
  // K = 3, x = (1, 2), W = 0, beta = 0.01, D = 1: p = p' = 1/3. Right y~ = y = 0: delta row 0 = -(4/3) x, rows 1-2
  // (2/3) x, kappa = 1/3; A = 1 + kappa beta delta^2, b = delta, W = -b / A.
  const DenseRow x({1, 2});
  {
    auto learner = make<Learner>("newtron", {{"precision", "double"}});
    learner->reset({10, 2, 3}, 1);
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 0, true);
    const auto w = columns_of(*learner, 3);
    EXPECT_NEAR(w[0][0], 1.32548, 5e-6);
    EXPECT_NEAR(w[1][0], 2.60492, 5e-6);
    EXPECT_NEAR(w[0][1], -0.66568, 5e-6);
    EXPECT_NEAR(w[1][1], -1.32548, 5e-6);
    EXPECT_EQ(w[0][1], w[0][2]);
  }
  {  // Wrong y~ = 1: delta = (p/p')(e_1 - 1/K) x = (-1/3, 2/3, -1/3) x, kappa = 1.
    auto learner = make<Learner>("newtron", {{"precision", "double"}});
    learner->reset({10, 2, 3}, 1);
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 1, false);
    const auto w = columns_of(*learner, 3);
    EXPECT_NEAR(w[0][1], -(2.0 / 3) / (1 + 0.01 * 4.0 / 9), 1e-12);
    EXPECT_NEAR(w[1][1], -(4.0 / 3) / (1 + 0.01 * 16.0 / 9), 1e-12);
    EXPECT_NEAR(w[0][0], (1.0 / 3) / (1 + 0.01 / 9), 1e-12);
  }
}

TEST(Newtron, GradientEstimateIsUnbiased) {
  // From W = 0 every proposal y~ gives W_2 = -delta / (1 + kappa beta delta^2); with beta tiny W_2 ~ -delta, so
  // sum_y~ p'(y~) W_2(y~) ~ -(p - e_y) x^T with p uniform. Checked on the probe e_1 with x = (1, 0).
  const int k = 4;
  const int y = 2;
  const DenseRow x({1, 0});
  std::vector<double> expected(k, 0.0);
  for (int y_shown = 0; y_shown < k; ++y_shown) {
    auto learner = make<Learner>("newtron", {{"beta", "1e-12"}, {"gamma", "0.2"}, {"precision", "double"}});
    learner->reset({10, 2, k}, 1);
    Prediction pred = prediction_for(k);
    learner->predict(x.view(), pred);
    pred.proposed = y_shown;
    learner->learn(x.view(), pred, CorrectnessFeedback{y_shown == y});
    const auto w = columns_of(*learner, k)[0];
    for (int i = 0; i < k; ++i)
      expected[static_cast<std::size_t>(i)] += w[static_cast<std::size_t>(i)] / k;  // p' = 1/K
  }
  for (int i = 0; i < k; ++i) EXPECT_NEAR(expected[static_cast<std::size_t>(i)], -(1.0 / k - (i == y ? 1 : 0)), 1e-9);
}

TEST(Newtron, BallProjectionKeepsTheWeightsWithinDWhereTheUnprojectedOnesDiverge) {
  // beta = 1 makes the unprojected step unstable (docs/bandit-learners.md); with the ball, ||W||_F <= D always,
  // read off the scores of the unit probes (d = 2).
  const int k = 3;
  for (const std::string projection : {"none", "ball"}) {
    SCOPED_TRACE(projection);
    auto learner =
        make<Learner>("newtron", {{"beta", "1"}, {"D", "0.5"}, {"projection", projection}, {"precision", "double"}});
    learner->reset({10, 2, k}, 3);
    Rng rng(5);
    Prediction pred = prediction_for(k);
    double largest = 0;
    for (int t = 0; t < 3000; ++t) {
      const DenseRow x({static_cast<Feature>(rng.normal()), static_cast<Feature>(rng.normal())});
      learner->predict(x.view(), pred);
      const int y = x.values[0] > 0 ? 0 : (x.values[1] > 0 ? 1 : 2);
      learner->learn(x.view(), pred, CorrectnessFeedback{pred.proposed == y});
      const auto w = columns_of(*learner, k);
      double squared = 0;
      for (const auto& column : w)
        for (double v : column) squared += v * v;
      largest = std::max(largest, std::sqrt(squared));
      if (!std::isfinite(largest)) break;
    }
    if (projection == "ball")
      EXPECT_LE(largest, 0.5 * (1 + 1e-9));
    else
      EXPECT_GT(largest, 0.5);  // the same stream leaves the ball without the projection
  }
}

}  // namespace
}  // namespace glimpse::testing
