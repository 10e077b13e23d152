// squarecb: hand-computed rounds of each regressor and the inverse-gap proposals.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(SquareCb, HandComputedRoundThenInverseGapProposals) {
  for (const std::string update : {"adagrad", "sgd"}) {
    SCOPED_TRACE(update);
    auto learner = make<Learner>("squarecb", {{"update", update}, {"precision", "double"}});
    learner->reset({10, 2, 3}, 7);
    const DenseRow x({1, 2});
    Prediction pred = prediction_for(3);
    learner->predict(x.view(), pred);  // no update yet: gamma = 0, uniform proposals
    EXPECT_EQ(pred.predicted, 0);
    pred.proposed = 1;
    // Wrong: cost 1, estimate 0, gradient (0 - 1) x. AdaGrad: w_1 -= 0.5 (-x_j) / |x_j| = (0.5, 0.5), cost(x) 1.5;
    // plain: w_1 += 0.5 x, cost(x) = 0.5 * 5 = 2.5.
    learner->learn(x.view(), pred, CorrectnessFeedback{false});
    const double cost = update == "adagrad" ? 1.5 : 2.5;
    const auto w = columns_of(*learner, 3);
    EXPECT_NEAR(-w[0][1], 0.5, 1e-12);  // w_1 . e_1 in both
    EXPECT_NEAR(-w[1][1], update == "adagrad" ? 0.5 : 1.0, 1e-12);
    // One update: gamma = 10 * 1^0.5. Costs (0, c, 0): P(1) = 1/(3 + 10c), P(2) = 1/3, P(0) the rest.
    const auto freq = proposal_frequencies(*learner, x.view(), 3, 40000);
    const double p1 = 1 / (3 + 10 * cost);
    EXPECT_NEAR(freq[1], p1, 0.006);
    EXPECT_NEAR(freq[2], 1.0 / 3, 0.006);
    EXPECT_NEAR(freq[0], 1 - p1 - 1.0 / 3, 0.006);
  }
}

TEST(SquareCb, RightProposalOfZeroEstimatedCostChangesNothing) {
  auto learner = make<Learner>("squarecb", {{"precision", "double"}});
  learner->reset({10, 2, 3}, 1);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  learner->predict(x.view(), pred);
  learner->learn(x.view(), pred, CorrectnessFeedback{true});
  for (const auto& column : columns_of(*learner, 3))
    for (double v : column) EXPECT_EQ(v, 0.0);
}

TEST(SquareCb, NormalizedStepHandComputedRound) {
  // K = 3, x = (1, 2), proposal 1 wrong (cost 1), estimate 0. G = 4 (1, 4), N = (1, 2), r = (1/2, 1/8);
  // multiplier sqrt(1 step / sum (x/N)^2 = 2) = 1/sqrt2, s = sum x^2 r / sqrt2 = 1/sqrt2; the step moves the
  // estimate to 1 - exp(-2 eta s) = 1 - exp(-1/sqrt2) with w_1 proportional to x_j r_j = (1/2, 1/4).
  auto learner = make<Learner>("squarecb", {{"update", "normalized"}, {"precision", "double"}});
  learner->reset({10, 2, 3}, 7);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  learn_proposal(*learner, x.view(), pred, 1, false);
  const double moved = 1 - std::exp(-1 / std::sqrt(2.0));
  const auto w = columns_of(*learner, 3);
  EXPECT_NEAR(-w[0][1], moved / 2, 1e-12);
  EXPECT_NEAR(-w[1][1], moved / 4, 1e-12);
  learner->evaluate(x.view(), pred);
  EXPECT_NEAR(-pred.scores[1], moved, 1e-12);
  EXPECT_EQ(pred.scores[0], 0.0);
}

TEST(SquareCb, RidgeHandComputedRounds) {
  // K = 3, x = (1, 2), lambda 1, proposal 1 twice. Wrong: M = I, p = M^{-1} x = x, r = 5, w_1 = x (1 - 0) / 6.
  // Then right: p = x / 6, r = 5/6, w_1 = x/6 + p (0 - 5/6) / (11/6) = x / 11, the batch fit
  // (I + 2 x x^T)^{-1} x. Estimates are clipped to [0, 1]: at 3x the fit says 15/11.
  auto learner = make<Learner>("squarecb", {{"update", "ridge"}, {"precision", "double"}});
  learner->reset({10, 2, 3}, 7);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  learn_proposal(*learner, x.view(), pred, 1, false);
  auto w = columns_of(*learner, 3);
  EXPECT_NEAR(-w[0][1], 1.0 / 6, 1e-14);
  EXPECT_NEAR(-w[1][1], 2.0 / 6, 1e-14);
  learn_proposal(*learner, x.view(), pred, 1, true);
  w = columns_of(*learner, 3);
  EXPECT_NEAR(-w[0][1], 1.0 / 11, 1e-14);
  EXPECT_NEAR(-w[1][1], 2.0 / 11, 1e-14);
  EXPECT_EQ(w[0][0], 0.0);
  const DenseRow far({3, 6});
  learner->evaluate(far.view(), pred);
  EXPECT_EQ(pred.scores[1], -1.0);
}

TEST(SquareCb, RidgeIsTheExactLeastSquaresFitOfEachClassesCosts) {
  // Each class's estimate is (lambda I + sum x x^T)^{-1} sum c x over the rounds it was proposed, solved here
  // in one go from the recorded rounds. The recursion drifts from the batch solve by rounding (about 2e-9 after
  // 200 rounds here); a wrong gain or a missed rank-one update moves the fit by far more than the tolerance.
  const double lambda = 0.5;
  auto learner = make<Learner>("squarecb", {{"update", "ridge"}, {"lambda", "0.5"}, {"precision", "double"}});
  const int k = 3;
  learner->reset({200, 2, k}, 3);
  Rng rng(5);
  std::vector<Eigen::Matrix2d> gram(k, lambda * Eigen::Matrix2d::Identity());
  std::vector<Eigen::Vector2d> moment(k, Eigen::Vector2d::Zero());
  for (int t = 0; t < 200; ++t) {
    const Eigen::Vector2d v(rng.uniform() * 2 - 1, rng.uniform() * 2 - 1);
    const DenseRow x({static_cast<Feature>(v[0]), static_cast<Feature>(v[1])});
    const Eigen::Vector2d xv(static_cast<Feature>(v[0]), static_cast<Feature>(v[1]));
    Prediction pred = prediction_for(k);
    learner->predict(x.view(), pred);
    const int label = v[0] > 0.3 ? 0 : (v[1] > 0 ? 1 : 2);
    const bool right = pred.proposed == label;
    learner->learn(x.view(), pred, CorrectnessFeedback{right});
    gram[static_cast<std::size_t>(pred.proposed)] += xv * xv.transpose();
    moment[static_cast<std::size_t>(pred.proposed)] += (right ? 0.0 : 1.0) * xv;
  }
  const auto w = columns_of(*learner, k);
  for (int a = 0; a < k; ++a) {
    const Eigen::Vector2d fit = gram[static_cast<std::size_t>(a)].ldlt().solve(moment[static_cast<std::size_t>(a)]);
    for (int j = 0; j < 2; ++j) {
      const double estimate = std::clamp(fit[j], 0.0, 1.0);  // probes see the clipped estimate
      EXPECT_NEAR(-w[static_cast<std::size_t>(j)][static_cast<std::size_t>(a)], estimate, 1e-8) << a << " " << j;
    }
  }
}

TEST(SquareCb, RidgeSketchOfRankAboveTheDimensionIsTheExactFit) {
  // d = 2 <= sketch_rank = 3: a sketch of full rank keeps the exact state, so both make the same proposals with the
  // same scores; rank 1 < d sketches (it lowers a direction), and its scores differ.
  auto exact = make<Learner>("squarecb", {{"update", "ridge"}, {"precision", "double"}});
  auto sketch = make<Learner>(
      "squarecb", {{"update", "ridge"}, {"precision", "double"}, {"second_order", "sketch"}, {"sketch_rank", "3"}});
  auto coarse = make<Learner>(
      "squarecb", {{"update", "ridge"}, {"precision", "double"}, {"second_order", "sketch"}, {"sketch_rank", "1"}});
  const int k = 3;
  for (auto* learner : {exact.get(), sketch.get(), coarse.get()}) learner->reset({300, 2, k}, 3);
  Rng rng(8);
  double coarse_gap = 0;
  for (int t = 0; t < 300; ++t) {
    const DenseRow x({static_cast<Feature>(rng.uniform() * 2 - 1), static_cast<Feature>(rng.uniform() * 2 - 1)});
    Prediction a = prediction_for(k), b = prediction_for(k), c = prediction_for(k);
    exact->predict(x.view(), a);
    sketch->predict(x.view(), b);
    coarse->predict(x.view(), c);
    ASSERT_EQ(a.proposed, b.proposed) << "round " << t;
    for (int i = 0; i < k; ++i) ASSERT_NEAR(a.scores[i], b.scores[i], 1e-9) << "round " << t;
    for (int i = 0; i < k; ++i) coarse_gap = std::max(coarse_gap, std::abs(a.scores[i] - c.scores[i]));
    const bool right = a.proposed == (x.values[0] > 0.3f ? 0 : 1);
    exact->learn(x.view(), a, CorrectnessFeedback{right});
    sketch->learn(x.view(), b, CorrectnessFeedback{right});
    c.proposed = a.proposed;  // the same rounds, so that only the Gram matrix differs
    coarse->learn(x.view(), c, CorrectnessFeedback{right});
  }
  EXPECT_GT(coarse_gap, 1e-3);
}

TEST(SquareCb, NormalizedStepIsFreeOfFeatureScales) {
  expect_scale_free("squarecb", {{"update", "normalized"}, {"precision", "double"}}, true);
}

}  // namespace
}  // namespace glimpse::testing
