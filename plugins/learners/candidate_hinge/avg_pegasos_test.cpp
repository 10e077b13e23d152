// avg_pegasos (APH Pegasos): two rounds by hand with the projection, label feedback gives
// pegasos, W stays in the ball of radius 1/sqrt(lambda), and float weights stay finite at a small lambda.
#include <cmath>
#include "candidate_hinge_checks.hpp"

namespace glimpse::testing {
namespace {

TEST(AvgPegasos, HandComputedTwoRoundsWithTheProjection) {
  // lambda 0.1. Round 1 on x = (1, 0), Y = {0, 1}: eta 10, shrink 0, rival 2: W = 10 * (0.5, 0.5, -1) x, of norm
  // sqrt(150) > 1/sqrt(0.1), so scaled to radius sqrt(10). Round 2 on x2 = (0, 1), Y = {2}: eta 5, shrink 1/2,
  // rival 0 (scores tie at 0): row 2 += 5 x2, row 0 -= 5 x2, then projected again.
  auto pegasos = make<Learner>("avg_pegasos", {{"lambda", "0.1"}, {"precision", "double"}});
  pegasos->reset({2, 2, 3}, 0);
  const DenseRow x({1, 0}), x2({0, 1});
  Prediction pred = prediction_for(3);
  pegasos->predict(x.view(), pred);
  pegasos->learn(x.view(), pred, CandidateSetFeedback{set_of({0, 1})});
  const double radius = std::sqrt(10.0);
  double c = radius / std::sqrt(150.0);
  auto w = weights_of(*pegasos, 3, 2);
  EXPECT_NEAR(w[0][0], 5 * c, 1e-12);
  EXPECT_NEAR(w[2][0], -10 * c, 1e-12);
  pegasos->predict(x2.view(), pred);
  pegasos->learn(x2.view(), pred, CandidateSetFeedback{set_of({2})});
  const std::vector<std::vector<double>> expected{{2.5 * c, -5}, {2.5 * c, 0}, {-5 * c, 5}};
  double squared = 0;
  for (const auto& row : expected)
    for (const double v : row) squared += v * v;
  c = radius / std::sqrt(squared);
  w = weights_of(*pegasos, 3, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(w[i][j], expected[i][j] * c, 1e-12) << i << "," << j;
}

TEST(AvgPegasos, ExactLabelsGivePegasos) { expect_exact_labels_give_pegasos("avg_pegasos"); }

TEST(AvgPegasos, StaysInTheBallOfRadiusOneOverSqrtLambda) { expect_in_the_pegasos_ball_every_round("avg_pegasos"); }

TEST(AvgPegasos, FloatStaysFiniteAtASmallLambda) {
  expect_float_pegasos_finite("avg_pegasos", "candidate_set", {{"size", "3"}});
}

}  // namespace
}  // namespace glimpse::testing
