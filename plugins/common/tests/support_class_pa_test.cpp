// support_class_pa.hpp (spa, cspa): the support-class PA step against a brute-force QP optimum.
#include <glimpse/algorithms/support_class_pa.hpp>
#include <glimpse/testing_gtest.hpp>
#include <limits>

namespace glimpse::testing {
namespace {

// Minimum of (1/2) a sum tau_i^2 subject to s_y + a tau_y - s_i - a tau_i >= 1, found by trying every
// active set S (equality on S, tau zero off S u {y}) and keeping the feasible candidate of least objective.
double brute_force_objective(const std::vector<double>& s, int y, double a) {
  const int k = static_cast<int>(s.size());
  double best = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << k); ++mask) {
    if (mask & (1u << y)) continue;
    double sum = 0.0;
    int size = 0;
    for (int i = 0; i < k; ++i)
      if (mask & (1u << i)) sum += 1.0 - s[y] + s[i], ++size;
    const double tau_y = sum / (a * (size + 1));
    std::vector<double> tau(k, 0.0);
    tau[y] = tau_y;
    for (int i = 0; i < k; ++i)
      if (mask & (1u << i)) tau[i] = tau_y - (1.0 - s[y] + s[i]) / a;
    bool feasible = true;
    for (int i = 0; i < k; ++i)
      if (i != y && s[y] + a * tau[y] - s[i] - a * tau[i] < 1.0 - 1e-9) feasible = false;
    if (!feasible) continue;
    double objective = 0.0;
    for (double t : tau) objective += 0.5 * a * t * t;
    best = std::min(best, objective);
  }
  return best;
}

TEST(SupportClassPa, MatchesBruteForceOptimumAndKktOnRandomCases) {
  for (const auto seed : property_seeds(300)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int k = 2 + static_cast<int>(rng.below(5));
    std::vector<double> s(k);
    for (auto& v : s) v = 2.0 * rng.normal();
    if (rng.below(4) == 0) s[1] = s[0];  // equal losses must not matter
    const int y = static_cast<int>(rng.below(static_cast<std::uint64_t>(k)));
    const double a = 0.1 + 3.0 * rng.uniform();
    algorithms::SupportClassPa step;
    step.reset(k);
    const bool changed = step.compute(s, y, a);
    const auto& tau = step.tau();

    double sum = 0.0, objective = 0.0;
    for (int i = 0; i < k; ++i) sum += tau[i], objective += 0.5 * a * tau[i] * tau[i];
    EXPECT_NEAR(sum, 0.0, 1e-12);
    EXPECT_NEAR(objective, brute_force_objective(s, y, a), 1e-9 * (1.0 + objective));
    for (int i = 0; i < k; ++i) {
      if (i == y) continue;
      const double margin = (s[y] + a * tau[y]) - (s[i] + a * tau[i]);
      EXPECT_GE(margin, 1.0 - 1e-9) << "class " << i;
      if (tau[i] != 0.0) {
        EXPECT_LT(tau[i], 0.0) << "multiplier lambda_i = -tau_i must be positive on the support set";
        EXPECT_NEAR(margin, 1.0, 1e-9) << "support classes end exactly at margin 1";
      }
    }
    bool violated = false;
    for (int i = 0; i < k; ++i) violated |= i != y && s[y] - s[i] < 1.0;
    EXPECT_EQ(changed, violated);
  }
}

TEST(SupportClassPa, ZeroNormInstanceChangesNothing) {
  algorithms::SupportClassPa step;
  step.reset(3);
  EXPECT_FALSE(step.compute(std::vector<double>{0, 0, 0}, 1, 0.0));
  for (double t : step.tau()) EXPECT_EQ(t, 0.0);
}
using Precisions = ::testing::Types<float, double>;

}  // namespace
}  // namespace glimpse::testing
