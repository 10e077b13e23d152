// max_pegasos (MPH Pegasos): the first round by hand with the projection, label feedback
// gives pegasos, W stays in the ball of radius 1/sqrt(lambda), and float weights stay finite at a small lambda.
#include <cmath>
#include "candidate_hinge_checks.hpp"

namespace glimpse::testing {
namespace {

TEST(MaxPegasos, HandComputedFirstRoundWithTheProjection) {
  // lambda 0.1, x = (1, 0), Y = {0, 1}: eta 10, shrink 0; the best candidate is class 0 of the tied {0, 1}, the
  // rival class 2: W = 10 (e_0 - e_2) x, of norm 10 sqrt(2) > 1/sqrt(0.1), so scaled to radius sqrt(10):
  // rows 0 and 2 are +-sqrt(5) x.
  auto pegasos = make<Learner>("max_pegasos", {{"lambda", "0.1"}, {"precision", "double"}});
  pegasos->reset({2, 2, 3}, 0);
  const DenseRow x({1, 0});
  Prediction pred = prediction_for(3);
  pegasos->predict(x.view(), pred);
  pegasos->learn(x.view(), pred, CandidateSetFeedback{set_of({0, 1})});
  const auto w = weights_of(*pegasos, 3, 2);
  const std::vector<std::vector<double>> expected{{std::sqrt(5.0), 0}, {0, 0}, {-std::sqrt(5.0), 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(w[i][j], expected[i][j], 1e-12) << i << "," << j;
}

TEST(MaxPegasos, ExactLabelsGivePegasos) { expect_exact_labels_give_pegasos("max_pegasos"); }

TEST(MaxPegasos, StaysInTheBallOfRadiusOneOverSqrtLambda) { expect_in_the_pegasos_ball_every_round("max_pegasos"); }

TEST(MaxPegasos, FloatStaysFiniteAtASmallLambda) {
  expect_float_pegasos_finite("max_pegasos", "candidate_set", {{"size", "3"}});
}

}  // namespace
}  // namespace glimpse::testing
