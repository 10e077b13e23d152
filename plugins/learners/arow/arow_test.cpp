// arow: two hand-computed rounds.
#include <algorithm>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

}  // namespace
}  // namespace glimpse::testing
