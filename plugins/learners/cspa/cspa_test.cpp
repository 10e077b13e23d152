// cspa: hand-computed rounds and the wrong- and right-label steps' invariants.
#include <algorithm>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

}  // namespace
}  // namespace glimpse::testing
