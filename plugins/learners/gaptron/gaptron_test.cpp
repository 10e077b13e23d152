// gaptron (and gappletron, which shares its round): hand-computed rounds for both step rules.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

}  // namespace
}  // namespace glimpse::testing
