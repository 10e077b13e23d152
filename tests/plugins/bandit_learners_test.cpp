// Bandit-feedback learners (ALGORITHMS.md section 3 and 4): hand-computed rounds and the invariants of
// section 10, checked through the plugins' public interface (scores on probe instances reveal W).
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "support.hpp"

namespace glimpse::test {
namespace {

DenseRow random_row(Rng& rng, int d) {
  std::vector<Feature> v(static_cast<std::size_t>(d));
  for (auto& e : v) e = static_cast<Feature>(rng.normal());
  return DenseRow(v);
}

std::vector<double> scores_of(Learner& learner, const Instance& x, int k) {
  Prediction pred;
  pred.scores.resize(static_cast<std::size_t>(k));
  learner.predict(x, pred);
  return pred.scores;
}

// Puts a learner in a random state: rounds with random correctness feedback.
void scramble(Learner& learner, Rng& rng, int k, int d, int rounds) {
  Prediction pred;
  pred.scores.resize(static_cast<std::size_t>(k));
  for (int t = 0; t < rounds; ++t) {
    const DenseRow x = random_row(rng, d);
    learner.predict(x.view(), pred);
    learner.learn(x.view(), pred, CorrectnessFeedback{rng.below(3) == 0});
  }
}

TEST(Cspa, HandComputedWrongThenRightRounds) {
  auto cspa = make<Learner>("cspa", {{"beta", "0.5"}, {"precision", "double"}});
  cspa->reset({2, 1, 3}, 0);
  Prediction pred;
  pred.scores.resize(3);
  const DenseRow x({1});
  cspa->predict(x.view(), pred);
  EXPECT_EQ(pred.proposed, 0);
  // Wrong: loss = 1 + 0 - 0 = 1; w_i += 0.5/3 for i != 0, w_0 -= 2 * 0.5/3.
  cspa->learn(x.view(), pred, CorrectnessFeedback{false});
  EXPECT_EQ(scores_of(*cspa, x.view(), 3), (std::vector<double>{-1.0 / 3, 1.0 / 6, 1.0 / 6}));
  // Now proposes 1 (ties -> lowest index); right: SPA step with y = 1 on scores (-1/3, 1/6, 1/6):
  // losses: class 0: 1 - 1/6 - 1/3 = 1/2, class 2: 1; sorted 1, 1/2: k=2 needs 2 * 1/2 > 1: no -> S = {2};
  // L = 1/2; w_1 += 1/2, w_2 -= 1/2.
  cspa->predict(x.view(), pred);
  EXPECT_EQ(pred.proposed, 1);
  cspa->learn(x.view(), pred, CorrectnessFeedback{true});
  const auto s = scores_of(*cspa, x.view(), 3);
  EXPECT_NEAR(s[0], -1.0 / 3, 1e-12);
  EXPECT_NEAR(s[1], 2.0 / 3, 1e-12);
  EXPECT_NEAR(s[2], -1.0 / 3, 1e-12);
}

TEST(Cspa, WrongLabelStepKeepsOtherDifferencesAndRemovesBetaOfTheLoss) {
  for (const auto seed : property_seeds(100)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int k = 3 + static_cast<int>(rng.below(4)), d = 1 + static_cast<int>(rng.below(5));
    const std::string beta_text = std::to_string(0.05 + 0.95 * rng.uniform());  // 6 decimals
    const double beta = std::stod(beta_text);
    auto cspa = make<Learner>("cspa", {{"beta", beta_text}, {"precision", "double"}});
    cspa->reset({100, d, k}, seed);
    scramble(*cspa, rng, k, d, 15);
    const DenseRow x = random_row(rng, d), probe = random_row(rng, d);
    Prediction pred;
    pred.scores.resize(static_cast<std::size_t>(k));
    cspa->predict(x.view(), pred);
    const auto before = pred.scores;
    const int c = pred.proposed;
    double best_other = -1e300;
    for (int i = 0; i < k; ++i)
      if (i != c) best_other = std::max(best_other, before[i]);
    const double loss = 1 + before[c] - best_other;
    EXPECT_GE(loss, 1.0 - 1e-12);  // the proposal is the argmax
    cspa->learn(x.view(), pred, CorrectnessFeedback{false});
    const auto after = scores_of(*cspa, x.view(), k);
    double new_best_other = -1e300;
    for (int i = 0; i < k; ++i) {
      if (i == c) continue;
      new_best_other = std::max(new_best_other, after[i]);
      EXPECT_NEAR((before[c] - before[i]) - (after[c] - after[i]), beta * loss, 1e-9);
      for (int j = 0; j < k; ++j)
        if (j != c) {
          EXPECT_NEAR(after[i] - after[j], before[i] - before[j], 1e-9);
        }
    }
    EXPECT_NEAR(1 + after[c] - new_best_other, (1 - beta) * loss, 1e-9);
    double probe_sum = 0;
    for (double v : scores_of(*cspa, probe.view(), k)) probe_sum += v;
    EXPECT_NEAR(probe_sum, 0.0, 1e-9);  // sum_i w_i stays 0
  }
}

TEST(Cspa, RightLabelStepEqualsSpaAndNoRandomnessIsUsed) {
  Rng rng(4);
  const int k = 5, d = 4;
  const ProblemShape shape{50, d, k};
  auto cspa = make<Learner>("cspa", {{"precision", "double"}}, &shape);
  auto other_seed = make<Learner>("cspa", {{"precision", "double"}}, &shape);
  auto spa = make<Learner>("spa", {{"precision", "double"}});
  cspa->reset({50, d, k}, 1);
  other_seed->reset({50, d, k}, 999);
  spa->reset({50, d, k}, 1);
  Prediction a, b, c;
  for (auto* p : {&a, &b, &c}) p->scores.resize(k);
  for (int t = 0; t < 40; ++t) {
    const DenseRow x = random_row(rng, d);
    cspa->predict(x.view(), a);
    other_seed->predict(x.view(), b);
    spa->predict(x.view(), c);
    ASSERT_EQ(a.scores, b.scores);
    ASSERT_EQ(a.scores, c.scores);  // every feedback below is "right", so CSPA is SPA told y = proposal
    cspa->learn(x.view(), a, CorrectnessFeedback{true});
    other_seed->learn(x.view(), b, CorrectnessFeedback{true});
    spa->learn(x.view(), c, LabelFeedback{c.proposed});
  }
}

TEST(Banditron, ExpectedUpdateOverItsExplorationIsThePerceptronUpdate) {
  // From W = 0 the greedy label is 0; realise every proposal r with a seed that draws it, apply the update
  // for truth y, and weight it by P(r) = (1 - gamma)[r = 0] + gamma / K.
  const int k = 4, d = 3, y = 2;
  const double gamma = 0.2;
  const DenseRow x({0.5f, -1.0f, 2.0f});
  std::vector<std::vector<double>> expected_change(k, std::vector<double>(d, 0.0));
  for (int r = 0; r < k; ++r) {
    std::uint64_t seed = 0;
    Prediction pred;
    pred.scores.resize(k);
    std::unique_ptr<Learner> learner;
    do {
      learner = make<Learner>("banditron", {{"gamma", "0.2"}, {"precision", "double"}});
      learner->reset({1, d, k}, seed++);
      learner->predict(x.view(), pred);
    } while (pred.proposed != r);
    EXPECT_EQ(pred.predicted, 0);
    learner->learn(x.view(), pred, CorrectnessFeedback{r == y});
    const double p = (r == 0 ? 1 - gamma : 0.0) + gamma / k;
    for (int j = 0; j < d; ++j) {
      DenseRow e(std::vector<Feature>(d, 0.0f));
      e.values[j] = 1.0f;
      const auto w = scores_of(*learner, e.view(), k);  // column j of W
      for (int i = 0; i < k; ++i) expected_change[i][j] += p * w[i];
    }
  }
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j)
      EXPECT_NEAR(expected_change[i][j], double((i == y) - (i == 0)) * x.values[j], 1e-12) << i << "," << j;
}

TEST(Banditron, ProposalsFollowTheExplorationDistributionAndTheSeed) {
  const int k = 5;
  const DenseRow x({1.0f});
  std::vector<int> counts(k, 0);
  auto learner = make<Learner>("banditron", {{"gamma", "0.3"}});
  learner->reset({1, 1, k}, 7);
  Prediction pred;
  pred.scores.resize(k);
  const int n = 50000;
  std::vector<int> first_proposals;
  for (int t = 0; t < n; ++t) {
    learner->predict(x.view(), pred);  // no learning: W stays 0, greedy stays 0
    ++counts[pred.proposed];
    if (t < 20) first_proposals.push_back(pred.proposed);
  }
  for (int r = 0; r < k; ++r) EXPECT_NEAR(counts[r] / double(n), (r == 0 ? 0.7 : 0.0) + 0.3 / k, 0.01);
  auto again = make<Learner>("banditron", {{"gamma", "0.3"}});
  again->reset({1, 1, k}, 7);
  for (int t = 0; t < 20; ++t) {
    again->predict(x.view(), pred);
    EXPECT_EQ(pred.proposed, first_proposals[t]);
  }
}

TEST(Bpa, StepMovesOnlyTheProposedRowToItsTargetMargin) {
  for (const auto seed : property_seeds(60)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int k = 3 + static_cast<int>(rng.below(3)), d = 2 + static_cast<int>(rng.below(3));
    auto bpa = make<Learner>("bpa", {{"gamma", "0.3"}, {"precision", "double"}});
    bpa->reset({100, d, k}, seed);
    scramble(*bpa, rng, k, d, 10);
    const DenseRow x = random_row(rng, d), probe = random_row(rng, d);
    Prediction pred;
    pred.scores.resize(k);
    const auto probe_before = scores_of(*bpa, probe.view(), k);
    bpa->predict(x.view(), pred);
    const double z = pred.scores[pred.proposed];
    const bool right = rng.below(2) == 0;
    bpa->learn(x.view(), pred, CorrectnessFeedback{right});
    const auto after = scores_of(*bpa, x.view(), k);
    const auto probe_after = scores_of(*bpa, probe.view(), k);
    for (int i = 0; i < k; ++i) {
      if (i != pred.proposed) {
        EXPECT_EQ(probe_after[i], probe_before[i]);
      }
    }
    if (right) {
      EXPECT_NEAR(after[pred.proposed], std::max(z, 1.0), 1e-9);
    } else {
      EXPECT_NEAR(after[pred.proposed], std::min(z, -1.0), 1e-9);
    }
  }
}

// Confidit's full-matrix variant against a direct computation: A_k = 4 I + sum of x x' over the rounds
// where k was proposed (x normalised), w_k = A_k^{-1} b_k, widths sqrt(eta x' A_k^{-1} x).
TEST(Confidit, FullMatrixMatchesADirectInverseAndDiagonalAgreesInOneDimension) {
  const int k = 3, d = 3;
  const double eta = 0.7;
  auto confidit = make<Learner>("confidit", {{"eta", "0.7"}, {"matrix", "full"}, {"precision", "double"}});
  confidit->reset({100, d, k}, 0);
  std::vector<Eigen::MatrixXd> a(k, Eigen::MatrixXd::Identity(d, d) * 4.0);
  std::vector<Eigen::VectorXd> b(k, Eigen::VectorXd::Zero(d));
  Rng rng(3);
  Prediction pred;
  pred.scores.resize(k);
  for (int t = 0; t < 60; ++t) {
    const DenseRow x = random_row(rng, d);
    // The learner keeps x / ||x|| as float features (||x|| computed in double): round the same way.
    double norm = 0;
    for (int j = 0; j < d; ++j) norm += double(x.values[j]) * x.values[j];
    std::vector<Feature> rounded(d);  // stored as float, as the learner stores it
    for (int j = 0; j < d; ++j) rounded[j] = static_cast<Feature>(x.values[j] / std::sqrt(norm));
    Eigen::VectorXd u(d);
    for (int j = 0; j < d; ++j) u[j] = rounded[j];
    confidit->predict(x.view(), pred);
    int best = 0;
    std::vector<double> upper(k);
    for (int i = 0; i < k; ++i) {
      const Eigen::MatrixXd inverse = a[i].inverse();
      const double score = (inverse * b[i]).dot(u);
      EXPECT_NEAR(pred.scores[i], score, 1e-9) << "round " << t;
      upper[i] = score + std::sqrt(eta * u.dot(inverse * u));
      if (upper[i] > upper[best]) best = i;
    }
    ASSERT_EQ(pred.proposed, best) << "round " << t;
    const bool right = rng.below(2) == 0;
    confidit->learn(x.view(), pred, CorrectnessFeedback{right});
    a[best] += u * u.transpose();
    b[best] += (right ? 1.0 : -1.0) * u;
    EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(a[best]).info(), Eigen::Success);  // A stays positive definite
  }
  // With d = 1 a full matrix is diagonal: both variants make the same proposals and scores.
  auto diag = make<Learner>("confidit", {{"precision", "double"}});
  auto full = make<Learner>("confidit", {{"matrix", "full"}, {"precision", "double"}});
  diag->reset({10, 1, 4}, 0);
  full->reset({10, 1, 4}, 0);
  Prediction p1, p2;
  p1.scores.resize(4);
  p2.scores.resize(4);
  for (int t = 0; t < 40; ++t) {
    const DenseRow x({static_cast<Feature>(rng.normal())});
    diag->predict(x.view(), p1);
    full->predict(x.view(), p2);
    ASSERT_EQ(p1.proposed, p2.proposed);
    for (int i = 0; i < 4; ++i) ASSERT_NEAR(p1.scores[i], p2.scores[i], 1e-12);
    const bool right = rng.below(2) == 0;
    diag->learn(x.view(), p1, CorrectnessFeedback{right});
    full->learn(x.view(), p2, CorrectnessFeedback{right});
  }
}

TEST(Cpa, ClippedLossAndTheComplementaryOracle) {
  auto cpa = make<Learner>("cpa", {{"beta", "1"}, {"precision", "double"}});
  cpa->reset({1, 1, 3}, 0);
  Prediction pred;
  pred.scores.resize(3);
  const DenseRow x({1});
  cpa->predict(x.view(), pred);
  cpa->learn(x.view(), pred, ComplementaryFeedback{2});  // loss 1, beta 1: w_2 -= 2/3, others += 1/3
  EXPECT_EQ(scores_of(*cpa, x.view(), 3), (std::vector<double>{1.0 / 3, 1.0 / 3, -2.0 / 3}));
  cpa->learn(x.view(), pred, ComplementaryFeedback{2});  // now loss = 1 - 2/3 - 1/3 = 0: no change
  EXPECT_EQ(scores_of(*cpa, x.view(), 3), (std::vector<double>{1.0 / 3, 1.0 / 3, -2.0 / 3}));

  auto oracle = make<FeedbackOracle>("complementary");
  oracle->reset({1, 1, 4});
  std::vector<int> counts(4, 0);
  for (int t = 0; t < 30000; ++t) {
    Rng rng(derive_key(5, static_cast<std::uint64_t>(t)));
    ++counts[std::get<ComplementaryFeedback>(oracle->respond(x.view(), {t, 1, {}}, pred, rng)).label];
  }
  EXPECT_EQ(counts[1], 0);
  for (int c : {0, 2, 3}) EXPECT_NEAR(counts[c] / 30000.0, 1.0 / 3, 0.012);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

TEST(Confidit, ProjectionKeepsScoresWithinAlpha) {
  for (const char* matrix : {"diag", "full"}) {
    SCOPED_TRACE(matrix);
    const int k = 4, d = 3;
    auto confidit = make<Learner>(
        "confidit",
        {{"matrix", matrix}, {"projection", "true"}, {"alpha", "0.5"}, {"eta", "0.1"}, {"precision", "double"}});
    confidit->reset({300, d, k}, 0);
    Rng rng(11);
    Prediction pred;
    pred.scores.resize(k);
    bool clipped = false;
    for (int t = 0; t < 300; ++t) {
      const DenseRow x = random_row(rng, d);
      confidit->predict(x.view(), pred);
      for (int i = 0; i < k; ++i) ASSERT_LE(std::abs(pred.scores[i]), 0.5 + 1e-9) << "round " << t;
      clipped |= std::any_of(pred.scores.begin(), pred.scores.end(), [](double s) { return std::abs(s) > 0.5 - 1e-9; });
      confidit->learn(x.view(), pred, CorrectnessFeedback{rng.below(2) == 0});
    }
    EXPECT_TRUE(clipped);  // the bound was reached, so the projection acted
  }
  // Without projection the same stream lets scores grow past alpha.
  auto free = make<Learner>("confidit", {{"alpha", "0.5"}, {"eta", "0.1"}, {"precision", "double"}});
  free->reset({300, 1, 2}, 0);
  Prediction pred;
  pred.scores.resize(2);
  const DenseRow x({1.0f});
  for (int t = 0; t < 50; ++t) {
    free->predict(x.view(), pred);
    free->learn(x.view(), pred, CorrectnessFeedback{pred.proposed == 0});
  }
  free->predict(x.view(), pred);
  EXPECT_GT(pred.scores[0], 0.5);
}

// The CSPA authors' kernel Confidit (confidit_kernel.py) passes the searched eta positionally into `test_x`, so it
// always runs with eta = 100, and starts A at 2 I (alpha = sqrt(2) - 1). After one right answer on x = e1, class 0
// has w_0 = 1/3 (A_0 = 2 + 1 = 3): with eta = 100 its bound 1/3 + sqrt(100/3) = 6.107 is below the untried
// classes' sqrt(100/2) = 7.071, so the program keeps exploring; with eta = 0.01 (a value its search "chose")
// 1/3 + sqrt(0.01/3) = 0.391 beats sqrt(0.01/2) = 0.0707, and the published algorithm exploits.
TEST(Confidit, TheAuthorsProgramsFixedEtaKeepsExploringWhereTheSearchedEtaExploits) {
  for (const auto& [eta, second] : {std::pair{"100", 1}, std::pair{"0.01", 0}}) {
    auto confidit = make<Learner>("confidit", {{"eta", eta}, {"alpha", "0.41421356237309503"}, {"precision", "double"}});
    confidit->reset({10, 1, 3}, 0);
    const DenseRow x({1.0f});
    Prediction pred;
    pred.scores.resize(3);
    confidit->predict(x.view(), pred);
    ASSERT_EQ(pred.proposed, 0) << "equal bounds: the first class, as np.argmax";
    confidit->learn(x.view(), pred, CorrectnessFeedback{true});
    confidit->predict(x.view(), pred);
    EXPECT_NEAR(pred.scores[0], 1.0 / 3.0, 1e-12) << "eta " << eta;
    EXPECT_EQ(pred.proposed, second) << "eta " << eta;
  }
}

}  // namespace
}  // namespace glimpse::test
