// copa: the closed-form step against the supplement's hand case, a generic dual solver, KKT and zero
// duality gap on random cases, and the learner's sum-to-zero invariant.

#include <glimpse/testing_gtest.hpp>

#include "copa_step.hpp"

namespace glimpse::testing {
namespace {

struct Case {
  std::vector<double> scores;
  int y;
  double squared_norm, c, delta;
};

// The dual H(alpha) of the supplement's equation (15).
double dual(const Case& k, const std::vector<double>& alpha) {
  const double q = static_cast<double>(alpha.size()), kappa = 1.0 / k.c + k.squared_norm;
  double squares = 0.0, sum = 0.0, linear = 0.0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    squares += alpha[i] * alpha[i];
    sum += alpha[i];
    if (static_cast<int>(i) != k.y) linear += alpha[i] * (k.scores[i] + k.delta);
  }
  return -0.5 * kappa * squares + 0.5 * k.squared_norm / q * sum * sum + linear;
}

// The primal F(W) of equation (1), with scores after the update s_q + coefficient_q ||x||^2 and the weight
// change measured along x (every w_q moves by a multiple of x).
double primal(const Case& k, const std::vector<double>& coefficient) {
  double change = 0.0, loss = 0.0;
  for (std::size_t i = 0; i < coefficient.size(); ++i) {
    change += 0.5 * coefficient[i] * coefficient[i] * k.squared_norm;
    if (static_cast<int>(i) == k.y) continue;
    const double hinge = std::max(0.0, k.scores[i] + coefficient[i] * k.squared_norm + k.delta);
    loss += 0.5 * k.c * hinge * hinge;
  }
  return change + loss;
}

// A generic solver for max H(alpha) s.t. alpha >= 0, alpha_y = 0: exact coordinate ascent, which converges
// for this strictly concave quadratic.
std::vector<double> coordinate_ascent(const Case& k) {
  const std::size_t n = k.scores.size();
  const double q = static_cast<double>(n), kappa = 1.0 / k.c + k.squared_norm, a = k.squared_norm / q;
  std::vector<double> alpha(n, 0.0);
  for (int sweep = 0; sweep < 20000; ++sweep)
    for (std::size_t i = 0; i < n; ++i) {
      if (static_cast<int>(i) == k.y) continue;
      double others = 0.0;
      for (std::size_t j = 0; j < n; ++j)
        if (j != i) others += alpha[j];
      // dH/dalpha_i = -kappa alpha_i + a (alpha_i + others) + l_i = 0
      alpha[i] = std::max(0.0, (k.scores[i] + k.delta + a * others) / (kappa - a));
    }
  return alpha;
}

TEST(CopaStep, HandCaseFromTheSupplementsConditions) {
  // Q = 3, y = 0, W = 0, ||x||^2 = 1, C = 1, Delta = 1/2: l_1 = l_2 = 1/2, kappa = 2.
  // I = 2 passes (1/2 + 1/(6-1) * 1/2 > 0), so s = 3/(6-2) * 1 = 3/4 and alpha_1 = alpha_2 = (1/2 + 1/4)/2 = 3/8.
  algorithms::CopaStep step;
  step.reset(3);
  ASSERT_TRUE(step.compute(std::vector<double>{0, 0, 0}, 0, 1.0, 1.0, 0.5));
  EXPECT_EQ(step.active_size(), 2);
  EXPECT_DOUBLE_EQ(step.sum_alpha(), 0.75);
  EXPECT_EQ(step.alpha(), (std::vector<double>{0, 0.375, 0.375}));
  // w_0 += s/Q x = x/4; w_1, w_2 -= (3/8 - 1/4) x.
  EXPECT_EQ(step.coefficients(), (std::vector<double>{0.25, -0.125, -0.125}));
  // Nothing to do when every wrong class is already below -Delta by enough, or x = 0.
  EXPECT_FALSE(step.compute(std::vector<double>{5, -3, -4}, 0, 1.0, 1.0, 0.5));
  EXPECT_FALSE(step.compute(std::vector<double>{0, 0, 0}, 0, 0.0, 1.0, 0.5));
  EXPECT_EQ(step.coefficients(), (std::vector<double>{0, 0, 0}));
}

TEST(CopaStep, EqualsTheDualOptimumAndSatisfiesKktOnRandomCases) {
  algorithms::CopaStep step;
  for (const auto seed : property_seeds(300)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int q = 2 + static_cast<int>(rng.below(7));
    Case k{std::vector<double>(static_cast<std::size_t>(q)), static_cast<int>(rng.below(static_cast<std::uint64_t>(q))),
           0.05 + 4 * rng.uniform(), std::pow(10.0, -2 + 4 * rng.uniform()), 1.0 / (q - 1)};
    for (auto& s : k.scores) s = rng.normal();
    if (rng.below(4) == 0 && q > 2) k.scores[(k.y + 1) % q] = k.scores[(k.y + 2) % q];  // ties must not matter
    step.reset(q);
    const bool changed = step.compute(k.scores, k.y, k.squared_norm, k.c, k.delta);
    const auto& alpha = step.alpha();
    const auto& coefficient = step.coefficients();
    const auto reference = coordinate_ascent(k);
    for (int i = 0; i < q; ++i) EXPECT_NEAR(alpha[i], reference[i], 1e-9) << "class " << i;
    EXPECT_EQ(changed, std::any_of(reference.begin(), reference.end(), [](double a) { return a > 1e-12; }));

    double sum_alpha = 0.0, sum_coefficient = 0.0;
    for (int i = 0; i < q; ++i) sum_alpha += alpha[i], sum_coefficient += coefficient[i];
    EXPECT_EQ(alpha[k.y], 0.0);
    EXPECT_NEAR(sum_alpha, step.sum_alpha(), 1e-12 * (1 + sum_alpha));
    EXPECT_NEAR(sum_coefficient, 0.0, 1e-12 * (1 + sum_alpha));  // the weights keep summing to zero
    // Complementary slackness with the new scores: w_q.x + Delta = alpha_q / C on the active set, <= 0 off it.
    for (int i = 0; i < q; ++i) {
      if (i == k.y) continue;
      const double margin = k.scores[i] + coefficient[i] * k.squared_norm + k.delta;
      if (alpha[i] > 0)
        EXPECT_NEAR(margin, alpha[i] / k.c, 1e-9 * (1 + std::abs(margin)));
      else
        EXPECT_LE(margin, 1e-9);
    }
    // Zero duality gap, and no sum-zero perturbation of the coefficients lowers the primal.
    const double f = primal(k, coefficient);
    EXPECT_NEAR(f, dual(k, alpha), 1e-9 * (1 + f));
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> perturbed = coefficient, direction(static_cast<std::size_t>(q));
      double mean = 0.0;
      for (auto& d : direction) d = rng.normal(), mean += d / q;
      for (int i = 0; i < q; ++i) perturbed[i] += 1e-3 * (direction[i] - mean);
      EXPECT_GE(primal(k, perturbed), f - 1e-12);
    }
  }
}

TEST(Copa, WeightsSumToZeroAfterEveryRoundAndDeltaDefaultsToOneOverKMinusOne) {
  const ProblemShape shape{100, 5, 4};
  auto learner = make<Learner>("copa", {{"precision", "double"}, {"c", "10"}}, &shape);
  learner->reset(shape, 1);
  Rng rng(3);
  Prediction pred;
  pred.scores.resize(4);
  std::vector<Feature> values(5);
  // Probe: weights of class q along basis vector e_j are the scores of e_j.
  const auto weight_sums = [&] {
    double worst = 0.0, scale = 0.0;
    for (int j = 0; j < 5; ++j) {
      std::vector<Feature> e(5, 0.0f);
      e[static_cast<std::size_t>(j)] = 1.0f;
      const DenseRow probe(e);
      learner->predict(probe.view(), pred);
      double sum = 0.0;
      for (double s : pred.scores) sum += s, scale = std::max(scale, std::abs(s));
      worst = std::max(worst, std::abs(sum));
    }
    return worst / (1 + scale);
  };
  for (int t = 0; t < 300; ++t) {
    for (auto& v : values) v = static_cast<Feature>(rng.normal());
    const DenseRow x(values);
    learner->predict(x.view(), pred);
    learner->learn(x.view(), pred, LabelFeedback{static_cast<std::int32_t>(rng.below(4))});
    ASSERT_LT(weight_sums(), 1e-12) << "round " << t;
  }
  // First update from W = 0 with Delta = 1/3: the hand formulas with l_q = 1/3 for the three wrong classes.
  auto fresh = make<Learner>("copa", {{"precision", "double"}}, &shape);
  fresh->reset(shape, 1);
  const DenseRow e0({1, 0, 0, 0, 0});
  fresh->predict(e0.view(), pred);
  fresh->learn(e0.view(), pred, LabelFeedback{2});
  fresh->predict(e0.view(), pred);
  // kappa = 2; I* = 3: s = 4/(8-3) * 1 = 0.8; alpha = (1/3 + 0.2)/2 = 4/15; coefficient = 0.2 - 4/15 = -1/15.
  EXPECT_NEAR(pred.scores[2], 0.2, 1e-15);
  for (int q : {0, 1, 3}) EXPECT_NEAR(pred.scores[q], -1.0 / 15, 1e-15);
}

TEST(Copa, InverseFrequencyClassWeightsScaleCByRoundsOverKTimesTheLabelsCount) {
  const ProblemShape shape{100, 5, 4};
  auto learner = make<Learner>("copa", {{"precision", "double"}, {"class_weights", "inverse_frequency"}}, &shape);
  learner->reset(shape, 1);
  Prediction pred;
  pred.scores.resize(4);
  const DenseRow e0({1, 0, 0, 0, 0}), e1({0, 1, 0, 0, 0});
  // Round 1, class 2: C = 1 * 1/(4*1) = 1/4, kappa = 5, l_q = 1/3 on the three wrong classes, I* = 3:
  // s = 4/(20-3) = 4/17, alpha = (1/3 + 1/17)/5 = 4/51, wrong classes move by -(4/51 - 1/17) = -1/51, class 2 by 1/17.
  learner->predict(e0.view(), pred);
  learner->learn(e0.view(), pred, LabelFeedback{2});
  learner->predict(e0.view(), pred);
  EXPECT_NEAR(pred.scores[2], 1.0 / 17, 1e-15);
  for (int q : {0, 1, 3}) EXPECT_NEAR(pred.scores[q], -1.0 / 51, 1e-15);
  // Round 2, class 0 on an orthogonal row: C = 2/(4*1) = 1/2, kappa = 3, s = 4/(12-3) = 4/9,
  // alpha = (1/3 + 1/9)/3 = 4/27, wrong classes move by -(4/27 - 1/9) = -1/27, class 0 by 1/9.
  learner->predict(e1.view(), pred);
  learner->learn(e1.view(), pred, LabelFeedback{0});
  learner->predict(e1.view(), pred);
  EXPECT_NEAR(pred.scores[0], 1.0 / 9, 1e-15);
  for (int q : {1, 2, 3}) EXPECT_NEAR(pred.scores[q], -1.0 / 27, 1e-15);
  // reset forgets the counts: round 1 again gives C = 1/4.
  learner->reset(shape, 1);
  learner->predict(e0.view(), pred);
  learner->learn(e0.view(), pred, LabelFeedback{2});
  learner->predict(e0.view(), pred);
  EXPECT_NEAR(pred.scores[2], 1.0 / 17, 1e-15);
}

}  // namespace
}  // namespace glimpse::testing
