// surrogate_gap.hpp (gaptron, gappletron): the hinge gap bounds the expected mistake.
#include <glimpse/algorithms/surrogate_gap.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(SurrogateGap, HingeGapKeepsTheExpectedMistakeBelowTheHingeLoss) {
  for (const auto seed : property_seeds(200)) {
    Rng rng(seed);
    const int k = 2 + static_cast<int>(rng.below(6));
    std::vector<double> s(static_cast<std::size_t>(k));
    for (auto& v : s) v = 2 * rng.normal();
    if (rng.below(4) == 0) s[1] = s[0];  // ties
    const int top = argmax(s);
    const double a = algorithms::hinge_gap(s, top);
    ASSERT_GE(a, 0.0);
    ASSERT_LE(a, 1.0);
    for (int y = 0; y < k; ++y) {
      const double mistake = y == top ? a * (k - 1) / k : 1 - a / k;  // E_{y' ~ (1-a) e_top + a/K}[y' != y]
      EXPECT_LE(mistake, algorithms::multiclass_hinge(s, y) + 1e-12) << "seed " << seed << " y " << y;
    }
  }
}

}  // namespace
}  // namespace glimpse::testing
