// scw: the first round of each variant by hand, and no change once the confident margin holds.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Scw, HandComputedFirstRoundOfEachVariant) {
  // K = 3, x = (1, 2), y = 0, phi = 1: scores 0, rival 1, m = 0, v = 5 + 5 = 10, psi = 3/2, xi = 2.
  // I, C = 1: alpha = sqrt(v phi^2 xi) / (v xi) = 1/sqrt20; u = (-10 alpha + sqrt(100 alpha^2 + 40))^2 / 4 = 5;
  //   beta = alpha / (sqrt5 + 10 alpha) = 1/20.
  // I, C = 0.1: alpha = 0.1 (the cap); u = (sqrt41 - 1)^2 / 4, beta = 0.1 / (sqrt u + 1) = 0.2 / (sqrt41 + 1).
  // II, C = 1: n = 10.5, alpha = sqrt(4 n v (n + v)) / (2 (n^2 + n v)) = sqrt(8610) / 430.5; beta from u as above.
  struct Case {
    std::string variant, c;
    double alpha;
  };
  for (const Case& c :
       {Case{"I", "1", 1 / std::sqrt(20.0)}, Case{"I", "0.1", 0.1}, Case{"II", "1", std::sqrt(8610.0) / 430.5}}) {
    SCOPED_TRACE(c.variant + " C " + c.c);
    auto learner = make<Learner>("scw", {{"variant", c.variant}, {"C", c.c}, {"precision", "double"}});
    learner->reset({10, 2, 3}, 1);
    const DenseRow x({1, 2});
    Prediction pred = prediction_for(3);
    learner->predict(x.view(), pred);
    learner->learn(x.view(), pred, LabelFeedback{0});
    const auto w = columns_of(*learner, 3);
    EXPECT_NEAR(w[0][0], c.alpha, 1e-12);
    EXPECT_NEAR(w[1][0], 2 * c.alpha, 1e-12);
    EXPECT_NEAR(w[0][1], -c.alpha, 1e-12);
    EXPECT_EQ(w[0][2], 0.0);
    // Round 2 reveals S_0 = 1 - beta x^2 through w_0's second step alpha' S_0 x (the ratio of its two coordinates).
    const double root = -c.alpha * 10 + std::sqrt(c.alpha * c.alpha * 100 + 40);
    const double beta = c.alpha / (root / 2 + 10 * c.alpha);
    learner->predict(x.view(), pred);
    learner->learn(x.view(), pred, LabelFeedback{0});
    const auto w2 = columns_of(*learner, 3);
    EXPECT_NEAR((w2[1][0] - w[1][0]) / (w2[0][0] - w[0][0]), 2 * (1 - 4 * beta) / (1 - beta), 1e-9);
  }
}

TEST(Scw, StopsChangingOnceTheConfidentMarginHolds) {
  // The same row and label again and again: v shrinks and m grows until m >= phi sqrt(v), after which alpha is 0
  // and no round changes the model.
  auto learner = make<Learner>("scw", {{"phi", "2"}, {"precision", "double"}});
  learner->reset({10, 2, 3}, 1);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  std::vector<double> before;
  int unchanged = 0;
  for (int round = 0; round < 300 && unchanged < 20; ++round) {
    learner->predict(x.view(), pred);
    unchanged = pred.scores == before ? unchanged + 1 : 0;
    before = pred.scores;
    learner->learn(x.view(), pred, LabelFeedback{0});
  }
  EXPECT_EQ(unchanged, 20);
  EXPECT_GT(pred.scores[0], pred.scores[1]);
}

}  // namespace
}  // namespace glimpse::testing
