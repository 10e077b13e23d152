// explorer: exploration around a base learner, hand-checked.
#include <cmath>
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

TEST(Explorer, ImportanceRepeatLearnsARightProposalOneOverItsProbabilityTimes) {
  // epsilon 1 makes every proposal's probability 1/3, so weight 3 exactly: `repeat` gives the Perceptron its label
  // 3 times with the round's prediction (greedy 0): w_1 += 3x, w_0 -= 3x, where `none` moves x once.
  const DenseRow x({1, 2});
  for (const std::string importance : {"repeat", "none"}) {
    SCOPED_TRACE(importance);
    auto learner = explorer_around("perceptron", {{"epsilon", "1"}, {"importance", importance}}, {{"precision", "double"}});
    learner->reset({10, 2, 3}, 4);
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 1, true);
    const double times = importance == "repeat" ? 3 : 1;
    EXPECT_EQ(columns_of(*learner, 3)[0], (std::vector<double>{-times, times, 0}));
  }
  // epsilon 0.3 around greedy 0: P(2) = 0.1, weight 10 (within rounding): 10 or 11 updates, 10 on average.
  // Over many fresh learners the mean of w_2's first weight is 10 (a fractional part this small seldom adds one).
  double total = 0;
  const int trials = 200;
  for (int seed = 0; seed < trials; ++seed) {
    auto learner = explorer_around("perceptron", {{"epsilon", "0.3"}, {"importance", "repeat"}}, {{"precision", "double"}});
    learner->reset({10, 2, 3}, static_cast<std::uint64_t>(seed));
    Prediction pred = prediction_for(3);
    learn_proposal(*learner, x.view(), pred, 2, true);
    const double moved = columns_of(*learner, 3)[0][2];
    EXPECT_TRUE(moved == 10 || moved == 11) << moved;
    total += moved;
  }
  EXPECT_NEAR(total / trials, 1 / (0.3 / 3), 0.05);
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
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(freq[static_cast<std::size_t>(a)], expected[static_cast<std::size_t>(a)], 0.006);
  }
}

}  // namespace
}  // namespace glimpse::testing
