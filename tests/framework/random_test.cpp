// Random streams: reproducible, keyed by meaning, and with the right distributions.
#include <cmath>

#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(Rng, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto va = a.next();
    EXPECT_EQ(va, b.next());
    differs |= va != c.next();
  }
  EXPECT_TRUE(differs);
  EXPECT_NE(derive_key(1, 2), derive_key(2, 1));
  EXPECT_EQ(hash_name("vehicle"), hash_name("vehicle"));
  EXPECT_NE(hash_name("vehicle"), hash_name("vehicles"));
}

TEST(Rng, UniformNormalBelowAndSampleHaveTheRightMoments) {
  Rng rng(1);
  const int n = 200000;
  double sum = 0, sum_sq = 0, normal_sum = 0, normal_sq = 0;
  std::vector<int> counts(7, 0), sampled(3, 0);
  const std::vector<double> p{0.2, 0.5, 0.3};
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u, sum_sq += u * u;
    const double z = rng.normal();
    normal_sum += z, normal_sq += z * z;
    ++counts[rng.below(7)];
    ++sampled[rng.sample(p)];
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NEAR(sum_sq / n - 0.25, 1.0 / 12, 0.003);
  EXPECT_NEAR(normal_sum / n, 0.0, 0.01);
  EXPECT_NEAR(normal_sq / n, 1.0, 0.015);
  for (int c : counts) EXPECT_NEAR(c / double(n), 1.0 / 7, 0.004);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(sampled[k] / double(n), p[k], 0.005);
}

TEST(Rng, SampleReturnsTheLastClassWhenRoundingLeavesNone) {
  Rng rng(3);
  const std::vector<double> p{0.0, 0.0};  // sums to 0: every u falls past the end
  EXPECT_EQ(rng.sample(p), 1);
}

}  // namespace
}  // namespace glimpse::test
