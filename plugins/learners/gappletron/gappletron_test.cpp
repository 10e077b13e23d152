// gappletron: two right proposals by hand, where the adaptive step
// eta_t = B / sqrt(2 (1e-8 + sum_s ||G_s||_F^2)) shrinks as the importance-weighted gradients add up. Gaptron's
// round that it shares is checked by hand in gaptron_test.cpp.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Gappletron, TheAdaptiveStepShrinksWithTheSumOfSquaredGradients) {
  // K = 3, gamma = 0.3, B = 10. Round 1 on x = (1, 2): scores 0, gap 1, so p = uniform; proposal 0 is right:
  // hinge 1, runner-up 1, importance weight 3, ||G_1||^2 = 9 * 2 * 5 = 90: w_0 += 3 eta_1 x, w_1 -= 3 eta_1 x.
  // Round 2 on x2 = (2, -1), orthogonal to x: scores 0 again; proposal 1 is right: runner-up 0, ||G_2||^2 = 90,
  // so eta_2 = 10 / sqrt(2 (1e-8 + 180)): w_1 += 3 eta_2 x2, w_0 -= 3 eta_2 x2.
  auto learner = make<Learner>("gappletron", {{"gamma", "0.3"}, {"precision", "double"}});
  learner->reset({10, 2, 3}, 2);
  const DenseRow x({1, 2}), x2({2, -1});
  Prediction pred = prediction_for(3);
  learn_proposal(*learner, x.view(), pred, 0, true);
  learner->evaluate(x2.view(), pred);
  EXPECT_EQ(pred.scores, (std::vector<double>{0, 0, 0}));
  learn_proposal(*learner, x2.view(), pred, 1, true);
  const double a = 3 * 10 / std::sqrt(2 * (1e-8 + 90)), b = 3 * 10 / std::sqrt(2 * (1e-8 + 180));
  const auto w = columns_of(*learner, 3);  // w[j][i] = W_ij
  const std::array<double, 2> w0{a * 1 - b * 2, a * 2 - b * -1};
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_NEAR(w[j][0], w0[j], 1e-12) << j;
    EXPECT_NEAR(w[j][1], -w0[j], 1e-12) << j;
    EXPECT_EQ(w[j][2], 0.0) << j;
  }
  // A wrong proposal leaves y unknown: nothing changes, the step's sum included.
  learn_proposal(*learner, x.view(), pred, 2, false);
  EXPECT_EQ(columns_of(*learner, 3), w);
}

}  // namespace
}  // namespace glimpse::testing
