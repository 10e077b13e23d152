// The bandit learners beyond the seed papers (MODERN_BANDITS.md): squarecb, soba, newtron, gaptron, gappletron.
// Hand-computed rounds (the numbers of MODERN_BANDITS.md's unit tests, recomputed by hand) and each method's
// defining property, through the plugins' public interface: scores on probe rows reveal W, and a test may set
// pred.proposed before learn() to choose the round's proposal (learners read it from there).
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/algorithms/surrogate_gap.hpp>

#include <algorithm>
#include <cmath>
#include <Eigen/Dense>

#include "support.hpp"

namespace glimpse::test {
namespace {

Prediction prediction_for(int k) {
  Prediction pred;
  pred.scores.resize(static_cast<std::size_t>(k));
  return pred;
}

// W's rows as seen on the unit probes e_1, e_2 (d = 2).
std::array<std::vector<double>, 2> columns_of(Learner& learner, int k) {
  std::array<std::vector<double>, 2> out;
  for (int j = 0; j < 2; ++j) {
    const DenseRow probe(j == 0 ? std::vector<Feature>{1, 0} : std::vector<Feature>{0, 1});
    Prediction pred = prediction_for(k);
    learner.evaluate(probe.view(), pred);
    out[static_cast<std::size_t>(j)] = pred.scores;
  }
  return out;
}

// One bandit round with the proposal chosen by the test: predict, propose `proposed`, learn whether it was right.
void learn_proposal(Learner& learner, const Instance& x, Prediction& pred, std::int32_t proposed, bool right) {
  learner.predict(x, pred);
  pred.proposed = proposed;
  learner.learn(x, pred, CorrectnessFeedback{right});
}

// How often predict() proposes each label over `draws` calls (no learning in between).
std::vector<double> proposal_frequencies(Learner& learner, const Instance& x, int k, int draws) {
  std::vector<double> counts(static_cast<std::size_t>(k), 0.0);
  Prediction pred = prediction_for(k);
  for (int t = 0; t < draws; ++t) {
    learner.predict(x, pred);
    counts[static_cast<std::size_t>(pred.proposed)] += 1.0 / draws;
  }
  return counts;
}

TEST(InverseGapWeighting, MatchesTheHandComputedDistribution) {
  algorithms::InverseGapWeighting igw;
  igw.reset(3);
  Rng rng(1);
  igw.propose(std::vector<double>{0.2, 0.5, 0.9}, 10, rng);  // 1/(3 + 10*0.3) = 1/6, 1/(3 + 10*0.7) = 1/10
  EXPECT_NEAR(igw.probability(0), 11.0 / 15, 1e-15);
  EXPECT_NEAR(igw.probability(1), 1.0 / 6, 1e-15);
  EXPECT_NEAR(igw.probability(2), 1.0 / 10, 1e-15);
  igw.propose(std::vector<double>{0.2, 0.5, 0.9}, 0, rng);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(igw.probability(a), 1.0 / 3, 1e-15);
  igw.propose(std::vector<double>{0.5, 0.1, 0.1}, 4, rng);  // ties: the first cheapest is b
  EXPECT_NEAR(igw.probability(2), 1.0 / 3, 1e-15);
  EXPECT_NEAR(igw.probability(0), 1.0 / (3 + 4 * 0.4), 1e-15);
  EXPECT_NEAR(igw.probability(1), 1 - 1.0 / 3 - 1.0 / 4.6, 1e-15);
}

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

// VW's normalised step does not depend on a feature's scale: the same stream with feature j multiplied by c_j
// (powers of two, so that every product is exact) gives the same scores to the last bit.
void expect_scale_free(const std::string& name, const std::map<std::string, std::string>& params, bool bandit) {
  auto plain = make<Learner>(name, params), scaled = make<Learner>(name, params);
  const int k = 4;
  plain->reset({10, 3, k}, 5);
  scaled->reset({10, 3, k}, 5);
  Rng rng(11);
  const std::array<double, 3> c{8, 0.125, 1};
  for (int t = 0; t < 300; ++t) {
    std::vector<Feature> row(3), row_scaled(3);
    for (int j = 0; j < 3; ++j) {
      row[j] = static_cast<Feature>(rng.uniform() * 2 - 1) * (t % 7 == j ? 0 : 1);  // zeros now and then
      row_scaled[j] = static_cast<Feature>(row[j] * c[static_cast<std::size_t>(j)]);
    }
    const DenseRow x(row), xs(row_scaled);
    Prediction p = prediction_for(k), ps = prediction_for(k);
    plain->predict(x.view(), p);
    scaled->predict(xs.view(), ps);
    ASSERT_EQ(p.scores, ps.scores) << "round " << t;
    ASSERT_EQ(p.proposed, ps.proposed) << "round " << t;
    const int label = (row[0] > 0) + 2 * (row[1] > 0);
    if (bandit) {
      plain->learn(x.view(), p, CorrectnessFeedback{p.proposed == label});
      scaled->learn(xs.view(), ps, CorrectnessFeedback{ps.proposed == label});
    } else {
      plain->learn(x.view(), p, LabelFeedback{label});
      scaled->learn(xs.view(), ps, LabelFeedback{label});
    }
  }
}

TEST(SquareCb, NormalizedStepIsFreeOfFeatureScales) {
  expect_scale_free("squarecb", {{"update", "normalized"}, {"precision", "double"}}, true);
}

TEST(OneAgainstAll, HandComputedRound) {
  // K = 3, x = (1, 2), y = 0. Class 0 toward +1, then classes 1 and 2 toward -1, each from 0 with the same
  // G, N and r as in SquareCb's hand round and a multiplier sqrt(steps / normaliser sum) = sqrt(t / 2t): each
  // score moves by 1 - exp(-1/sqrt2) toward its target.
  auto learner = make<Learner>("oaa", {{"precision", "double"}});
  learner->reset({10, 2, 3}, 1);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  learner->predict(x.view(), pred);
  learner->learn(x.view(), pred, LabelFeedback{0});
  learner->predict(x.view(), pred);
  const double moved = 1 - std::exp(-1 / std::sqrt(2.0));
  EXPECT_NEAR(pred.scores[0], moved, 1e-12);
  EXPECT_NEAR(pred.scores[1], -moved, 1e-12);
  EXPECT_NEAR(pred.scores[2], -moved, 1e-12);
  EXPECT_EQ(pred.predicted, 0);
  const auto w = columns_of(*learner, 3);  // w_0 = moved (1/2, 1/4)
  EXPECT_NEAR(w[0][0], moved / 2, 1e-12);
  EXPECT_NEAR(w[1][0], moved / 4, 1e-12);
}

TEST(OneAgainstAll, IsFreeOfFeatureScales) { expect_scale_free("oaa", {{"precision", "double"}}, false); }

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
      const DenseRow x({static_cast<Feature>(rng.normal()), static_cast<Feature>(rng.normal()),
                        static_cast<Feature>(rng.normal())});
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
    learner->report(report);
    ASSERT_EQ(report.scalars.size(), 1u);
    EXPECT_EQ(report.scalars[0].suffix, "cumulative_margin");
    EXPECT_GE(report.scalars[0].value, 0.0);
  }
}

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
    for (int i = 0; i < k; ++i) expected[static_cast<std::size_t>(i)] += w[static_cast<std::size_t>(i)] / k;  // p' = 1/K
  }
  for (int i = 0; i < k; ++i) EXPECT_NEAR(expected[static_cast<std::size_t>(i)], -(1.0 / k - (i == y ? 1 : 0)), 1e-9);
}

TEST(Newtron, BallProjectionKeepsTheWeightsWithinDWhereTheUnprojectedOnesDiverge) {
  // beta = 1 makes the unprojected step unstable (docs/bandit-learners.md); with the ball, ||W||_F <= D always,
  // read off the scores of the unit probes (d = 2).
  const int k = 3;
  for (const std::string projection : {"none", "ball"}) {
    SCOPED_TRACE(projection);
    auto learner = make<Learner>("newtron", {{"beta", "1"}, {"D", "0.5"}, {"projection", projection},
                                             {"precision", "double"}});
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

TEST(SurrogateGap, HingeGapKeepsTheExpectedMistakeBelowTheHingeLoss) {
  for (const auto seed : property_seeds(200)) {
    Rng rng(seed);
    const int k = 2 + static_cast<int>(rng.below(6));
    std::vector<double> s(static_cast<std::size_t>(k));
    for (auto& v : s) v = 2 * rng.normal();
    if (rng.below(4) == 0) s[1] = s[0];  // ties
    const int top = argmax(s);
    const double a = algorithms::hinge_gap(s, top);
    ASSERT_GE(a, 0.0);
    ASSERT_LE(a, 1.0);
    for (int y = 0; y < k; ++y) {
      const double mistake = y == top ? a * (k - 1) / k : 1 - a / k;  // E_{y' ~ (1-a) e_top + a/K}[y' != y]
      EXPECT_LE(mistake, algorithms::multiclass_hinge(s, y) + 1e-12) << "seed " << seed << " y " << y;
    }
  }
}

TEST(Gaptron, HandComputedRoundsForBothStepRules) {
  // K = 3, x = (1, 2), gamma = 0.3: scores 0, gap 1, so p = uniform; y~ = y = 0, hinge 1, runner-up 1, weight 3:
  // w_0 += eta 3 x, w_1 -= eta 3 x. gaptron eta = 1; gappletron eta = 10 / sqrt(2 (1e-8 + 2 * 9 * 5)).
  for (const std::string name : {"gaptron", "gappletron"}) {
    SCOPED_TRACE(name);
    auto learner = make<Learner>(name, {{"gamma", "0.3"}, {"precision", "double"}});
    learner->reset({10, 2, 3}, 2);
    const DenseRow x({1, 2});
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 0, true);
    const double step = name == "gaptron" ? 3.0 : 3 * 10 / std::sqrt(2 * (1e-8 + 90));
    const auto w = columns_of(*learner, 3);
    EXPECT_NEAR(w[0][0], step, 1e-12);
    EXPECT_NEAR(w[1][0], 2 * step, 1e-12);
    EXPECT_NEAR(w[0][1], -step, 1e-12);
    EXPECT_EQ(w[0][2], 0.0);
    // Now s(x) = (5 step, -5 step, 0): margin over 1, gap 0, so p = (0.7 + 0.1, 0.1, 0.1).
    const auto freq = proposal_frequencies(*learner, x.view(), 3, 40000);
    EXPECT_NEAR(freq[0], 0.8, 0.006);
    EXPECT_NEAR(freq[1], 0.1, 0.006);
    // A wrong proposal leaves y unknown: nothing changes.
    learn_proposal(*learner, x.view(), pred, 1, false);
    EXPECT_EQ(columns_of(*learner, 3), w);
  }
}

TEST(Arow, HandComputedTwoRounds) {
  // K = 3, x = (1, 2), r = 1, y = 0. Round 1: scores 0, rival 1, m = 0, v = 5 + 5, beta = 1/11, alpha = 1/11:
  // w_0 = x/11, w_1 = -x/11, S_0 = S_1 = 1 - x^2/11 = (10/11, 7/11). Round 2: s = (5/11, -5/11, 0), rival 2,
  // m = 5/11, v = (10 + 28)/11 + 5 = 93/11, beta = 11/104, alpha = (6/11) beta = 6/104: w_0 += alpha S_0 x.
  auto learner = make<Learner>("arow", {{"precision", "double"}});
  learner->reset({10, 2, 3}, 1);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  for (int round = 0; round < 2; ++round) {
    learner->predict(x.view(), pred);
    learner->learn(x.view(), pred, LabelFeedback{0});
  }
  const auto w = columns_of(*learner, 3);
  const double alpha = 6.0 / 104;
  EXPECT_NEAR(w[0][0], 1.0 / 11 + alpha * 10 / 11, 1e-12);
  EXPECT_NEAR(w[1][0], 2.0 / 11 + alpha * 14 / 11, 1e-12);
  EXPECT_NEAR(w[0][1], -1.0 / 11, 1e-12);
  EXPECT_NEAR(w[0][2], -alpha, 1e-12);
  EXPECT_NEAR(w[1][2], -2 * alpha, 1e-12);
  // A margin of at least 1 changes nothing.
  learner->predict(x.view(), pred);
  ASSERT_GE(pred.scores[0] - std::max(pred.scores[1], pred.scores[2]), 0.0);
}

TEST(Scw, HandComputedFirstRoundOfEachVariant) {
  // K = 3, x = (1, 2), y = 0, phi = 1: scores 0, rival 1, m = 0, v = 5 + 5 = 10, psi = 3/2, xi = 2.
  // I, C = 1: alpha = sqrt(v phi^2 xi) / (v xi) = 1/sqrt20; u = (-10 alpha + sqrt(100 alpha^2 + 40))^2 / 4 = 5;
  //   beta = alpha / (sqrt5 + 10 alpha) = 1/20.
  // I, C = 0.1: alpha = 0.1 (the cap); u = (sqrt41 - 1)^2 / 4, beta = 0.1 / (sqrt u + 1) = 0.2 / (sqrt41 + 1).
  // II, C = 1: n = 10.5, alpha = sqrt(4 n v (n + v)) / (2 (n^2 + n v)) = sqrt(8610) / 430.5; beta from u as above.
  struct Case {
    std::string variant, c;
    double alpha;
  };
  for (const Case& c : {Case{"I", "1", 1 / std::sqrt(20.0)}, Case{"I", "0.1", 0.1},
                        Case{"II", "1", std::sqrt(8610.0) / 430.5}}) {
    SCOPED_TRACE(c.variant + " C " + c.c);
    auto learner = make<Learner>("scw", {{"variant", c.variant}, {"C", c.c}, {"precision", "double"}});
    learner->reset({10, 2, 3}, 1);
    const DenseRow x({1, 2});
    Prediction pred = prediction_for(3);
    learner->predict(x.view(), pred);
    learner->learn(x.view(), pred, LabelFeedback{0});
    const auto w = columns_of(*learner, 3);
    EXPECT_NEAR(w[0][0], c.alpha, 1e-12);
    EXPECT_NEAR(w[1][0], 2 * c.alpha, 1e-12);
    EXPECT_NEAR(w[0][1], -c.alpha, 1e-12);
    EXPECT_EQ(w[0][2], 0.0);
    // Round 2 reveals S_0 = 1 - beta x^2 through w_0's second step alpha' S_0 x (the ratio of its two coordinates).
    const double root = -c.alpha * 10 + std::sqrt(c.alpha * c.alpha * 100 + 40);
    const double beta = c.alpha / (root / 2 + 10 * c.alpha);
    learner->predict(x.view(), pred);
    learner->learn(x.view(), pred, LabelFeedback{0});
    const auto w2 = columns_of(*learner, 3);
    EXPECT_NEAR((w2[1][0] - w[1][0]) / (w2[0][0] - w[0][0]), 2 * (1 - 4 * beta) / (1 - beta), 1e-9);
  }
}

TEST(Scw, StopsChangingOnceTheConfidentMarginHolds) {
  // The same row and label again and again: v shrinks and m grows until m >= phi sqrt(v), after which alpha is 0
  // and no round changes the model.
  auto learner = make<Learner>("scw", {{"phi", "2"}, {"precision", "double"}});
  learner->reset({10, 2, 3}, 1);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  std::vector<double> before;
  int unchanged = 0;
  for (int round = 0; round < 300 && unchanged < 20; ++round) {
    learner->predict(x.view(), pred);
    unchanged = pred.scores == before ? unchanged + 1 : 0;
    before = pred.scores;
    learner->learn(x.view(), pred, LabelFeedback{0});
  }
  EXPECT_EQ(unchanged, 20);
  EXPECT_GT(pred.scores[0], pred.scores[1]);
}

// An explorer around `base`, as the host builds it from a protocol ("base.NAME" sets the base's parameters).
std::unique_ptr<Learner> explorer_around(const std::string& base, const std::map<std::string, std::string>& own,
                                         const std::map<std::string, std::string>& base_params) {
  auto params = own;
  params["base"] = base;
  for (const auto& [key, text] : base_params) params["base." + key] = text;
  return make<Learner>("explorer", params);
}

TEST(Explorer, EpsilonGreedyAroundThePerceptronLearnsOnlyFromRightProposals) {
  // K = 3, x = (1, 2), epsilon 0.3: scores 0, greedy 0, P = (0.8, 0.1, 0.1). A right proposal 1 is the
  // Perceptron's label: w_1 += x, w_0 -= x, so s(x) = (-5, 5, 0) and P = (0.1, 0.8, 0.1). A wrong one changes nothing.
  auto learner = explorer_around("perceptron", {{"epsilon", "0.3"}}, {{"precision", "double"}});
  learner->reset({10, 2, 3}, 4);
  const DenseRow x({1, 2});
  auto freq = proposal_frequencies(*learner, x.view(), 3, 40000);
  EXPECT_NEAR(freq[0], 0.8, 0.006);
  EXPECT_NEAR(freq[2], 0.1, 0.006);
  Prediction pred = prediction_for(3);
  learn_proposal(*learner, x.view(), pred, 2, false);
  EXPECT_EQ(columns_of(*learner, 3)[0], (std::vector<double>{0, 0, 0}));
  learn_proposal(*learner, x.view(), pred, 1, true);
  const auto w = columns_of(*learner, 3);
  EXPECT_EQ(w[0], (std::vector<double>{-1, 1, 0}));
  EXPECT_EQ(w[1], (std::vector<double>{-2, 2, 0}));
  freq = proposal_frequencies(*learner, x.view(), 3, 40000);
  EXPECT_NEAR(freq[1], 0.8, 0.006);
  EXPECT_NEAR(freq[0], 0.1, 0.006);
}

TEST(Explorer, AWrongProposalBecomesAComplementaryLabelWhenAsked) {
  // Around oaa, a wrong proposal 1 steps class 1 alone toward -1 (the same step as oaa's hand round: its score
  // moves to -(1 - exp(-1/sqrt2))); with `wrong ignore` (the default) nothing moves.
  const DenseRow x({1, 2});
  for (const std::string wrong : {"complementary", "ignore"}) {
    SCOPED_TRACE(wrong);
    auto learner = explorer_around("oaa", {{"wrong", wrong}}, {{"precision", "double"}});
    learner->reset({10, 2, 3}, 4);
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 1, false);
    learner->evaluate(x.view(), pred);
    const double moved = wrong == "complementary" ? 1 - std::exp(-1 / std::sqrt(2.0)) : 0.0;
    EXPECT_NEAR(pred.scores[1], -moved, 1e-12);
    EXPECT_EQ(pred.scores[0], 0.0);
    EXPECT_EQ(pred.scores[2], 0.0);
  }
}

TEST(Explorer, SoftmaxAndInverseGapDistributionsOverTheBaseScores) {
  // After the Perceptron step above, s(x) = (-5, 5, 0). Softmax at tau = 5: P ~ (e^-1, e^1, 1).
  // Inverse gap at gamma = 1: P(0) = 1/(3 + 10), P(2) = 1/(3 + 5), P(1) the rest.
  const DenseRow x({1, 2});
  for (const std::string rule : {"softmax", "inverse_gap"}) {
    SCOPED_TRACE(rule);
    auto learner = explorer_around("perceptron", {{"rule", rule}, {"temperature", "5"}, {"gamma", "1"}},
                                   {{"precision", "double"}});
    learner->reset({10, 2, 3}, 9);
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 1, true);
    const auto freq = proposal_frequencies(*learner, x.view(), 3, 40000);
    std::vector<double> expected;
    if (rule == "softmax") {
      const double z = std::exp(-1.0) + std::exp(1.0) + 1;
      expected = {std::exp(-1.0) / z, std::exp(1.0) / z, 1 / z};
    } else {
      expected = {1.0 / 13, 1 - 1.0 / 13 - 1.0 / 8, 1.0 / 8};
    }
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(freq[static_cast<std::size_t>(a)], expected[static_cast<std::size_t>(a)], 0.006);
  }
}

}  // namespace
}  // namespace glimpse::test
