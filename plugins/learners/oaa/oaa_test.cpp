// oaa: a hand-computed round, and VW's normalised step free of feature scales.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

}  // namespace
}  // namespace glimpse::testing
