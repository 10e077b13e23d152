// surrogate_gap.hpp (gaptron, gappletron): each loss's gap map bounds the expected mistake, and each loss has the
// values its definition gives at hand-picked scores.
#include <cmath>
#include <glimpse/algorithms/surrogate_gap.hpp>
#include <glimpse/testing_gtest.hpp>
#include <numbers>

namespace glimpse::testing {
namespace {

using algorithms::SurrogateLoss;
constexpr SurrogateLoss all_losses[] = {SurrogateLoss::hinge, SurrogateLoss::smooth_hinge, SurrogateLoss::logistic};

TEST(SurrogateGap, EachGapMapKeepsTheExpectedMistakeBelowItsLoss) {
  for (const auto loss : all_losses)
    for (const auto seed : property_seeds(200)) {
      Rng rng(seed);
      const int k = 2 + static_cast<int>(rng.below(6));
      std::vector<double> s(static_cast<std::size_t>(k));
      for (auto& v : s) v = 2 * rng.normal();
      if (rng.below(4) == 0) s[1] = s[0];  // ties
      const int top = argmax(s);
      const double a = algorithms::surrogate_gap(loss, s, top);
      ASSERT_GE(a, 0.0);
      ASSERT_LE(a, 1.0);
      for (int y = 0; y < k; ++y) {
        const double mistake = y == top ? a * (k - 1) / k : 1 - a / k;  // E_{y' ~ (1-a) e_top + a/K}[y' != y]
        EXPECT_LE(mistake, algorithms::surrogate_loss(loss, s, y) + 1e-12)
            << "loss " << static_cast<int>(loss) << " seed " << seed << " y " << y;
      }
    }
}

TEST(SurrogateGap, LossesAtHandPickedScores) {
  // s = (2, 1.5, 0): margins 0.5 (label 0), -0.5 (label 1), -2 (label 2).
  const std::vector<double> s{2, 1.5, 0};
  EXPECT_DOUBLE_EQ(algorithms::surrogate_loss(SurrogateLoss::hinge, s, 0), 0.5);
  EXPECT_DOUBLE_EQ(algorithms::surrogate_loss(SurrogateLoss::hinge, s, 2), 3.0);
  EXPECT_DOUBLE_EQ(algorithms::surrogate_loss(SurrogateLoss::smooth_hinge, s, 0), 0.25);  // (1 - 0.5)^2
  EXPECT_DOUBLE_EQ(algorithms::surrogate_loss(SurrogateLoss::smooth_hinge, s, 1), 2.0);   // 1 - 2 (-0.5)
  EXPECT_DOUBLE_EQ(algorithms::surrogate_loss(SurrogateLoss::smooth_hinge, std::vector<double>{3, 1}, 0), 0.0);
  const double total = std::exp(2.0) + std::exp(1.5) + 1;
  EXPECT_NEAR(algorithms::surrogate_loss(SurrogateLoss::logistic, s, 1), std::log2(total / std::exp(1.5)), 1e-14);
  // The gap maps: min(1, loss of the top label).
  EXPECT_DOUBLE_EQ(algorithms::surrogate_gap(SurrogateLoss::hinge, s, 0), 0.5);
  EXPECT_DOUBLE_EQ(algorithms::surrogate_gap(SurrogateLoss::smooth_hinge, s, 0), 0.25);
  EXPECT_NEAR(algorithms::surrogate_gap(SurrogateLoss::logistic, s, 0), std::log2(total / std::exp(2.0)), 1e-14);
  EXPECT_DOUBLE_EQ(algorithms::surrogate_gap(SurrogateLoss::logistic, std::vector<double>{0, 0, 0}, 0), 1.0);
}

}  // namespace
}  // namespace glimpse::testing
