// gaptron (and gappletron, which shares its round): hand-computed rounds for both step rules and each loss.
#include <cmath>
#include <glimpse/testing_gtest.hpp>
#include <numbers>

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

TEST(Gaptron, HandComputedRoundsForTheSmoothHingeAndLogisticLosses) {
  // The same first round (scores 0, both gaps 1 as each loss of the top label is >= 1, so p uniform, weight 3).
  // smooth hinge: margin 0, slope l'(0) = -2: w_0 += 6 eta x, w_1 -= 6 eta x; squared gradient norm 2 * 4 * 9 * 5.
  // logistic: gradient rows (1/3 - 1, 1/3, 1/3) x / ln 2, times weight 3: w_0 += 2 eta x / ln 2, w_1 and w_2
  // -= eta x / ln 2; squared norm 9 * (4/9 + 1/9 + 1/9) * 5 / ln2^2 = 30 / ln2^2.
  const double ln2 = std::numbers::ln2;
  for (const std::string name : {"gaptron", "gappletron"}) {
    const auto eta = [&](double squared) { return name == "gaptron" ? 1.0 : 10 / std::sqrt(2 * (1e-8 + squared)); };
    for (const std::string loss : {"smooth_hinge", "logistic"}) {
      SCOPED_TRACE(name + " " + loss);
      auto learner = make<Learner>(name, {{"gamma", "0.3"}, {"loss", loss}, {"precision", "double"}});
      learner->reset({10, 2, 3}, 2);
      const DenseRow x({1, 2});
      Prediction pred = prediction_for(3);
      const auto freq = proposal_frequencies(*learner, x.view(), 3, 30000);
      EXPECT_NEAR(freq[2], 1.0 / 3, 0.01);
      learn_proposal(*learner, x.view(), pred, 0, true);
      const auto w = columns_of(*learner, 3);
      const std::vector<double> expected =
          loss == "smooth_hinge" ? std::vector<double>{6 * eta(360), -6 * eta(360), 0}
                                 : std::vector<double>{2 * eta(30 / (ln2 * ln2)) / ln2, -eta(30 / (ln2 * ln2)) / ln2,
                                                       -eta(30 / (ln2 * ln2)) / ln2};
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(w[0][k], expected[k], 1e-12) << k;
        EXPECT_NEAR(w[1][k], 2 * expected[k], 1e-12) << k;
      }
    }
  }
}

}  // namespace
}  // namespace glimpse::testing
