// pegasos (the exact-label baseline): the first round by hand with the projection, and
// float weights stay finite at a small lambda. avg_pegasos's and max_pegasos's tests check that they equal it on
// exact labels.
#include <cmath>
#include "candidate_hinge_checks.hpp"

namespace glimpse::testing {
namespace {

TEST(Pegasos, HandComputedFirstRoundWithTheProjection) {
  // lambda 0.1, x = (1, 0), y = 1: eta 10, shrink 0; all scores 0, so the rival is class 0 (ties go to the lowest
  // index): W = 10 (e_1 - e_0) x, of norm 10 sqrt(2) > 1/sqrt(0.1), so scaled to radius sqrt(10): rows 1 and 0
  // are +-sqrt(5) x. A second round on the same row has margin sqrt(5) - 0 > 1 (class 2 scores 0): no loss, so only the
  // shrink by 1 - 1/2 applies.
  auto pegasos = make<Learner>("pegasos", {{"lambda", "0.1"}, {"precision", "double"}});
  pegasos->reset({2, 2, 3}, 0);
  const DenseRow x({1, 0});
  Prediction pred = prediction_for(3);
  pegasos->predict(x.view(), pred);
  pegasos->learn(x.view(), pred, LabelFeedback{1});
  const double r = std::sqrt(5.0);
  auto w = weights_of(*pegasos, 3, 2);
  std::vector<std::vector<double>> expected{{-r, 0}, {r, 0}, {0, 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(w[i][j], expected[i][j], 1e-12) << i << "," << j;
  pegasos->predict(x.view(), pred);
  pegasos->learn(x.view(), pred, LabelFeedback{1});
  w = weights_of(*pegasos, 3, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(w[i][j], expected[i][j] / 2, 1e-12) << i << "," << j;
}

TEST(Pegasos, FloatStaysFiniteAtASmallLambda) { expect_float_pegasos_finite("pegasos", "full", {}); }

}  // namespace
}  // namespace glimpse::testing
