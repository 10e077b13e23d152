// gaussian_noise: drawn per seed with the requested variance.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(GaussianNoise, DrawsPerSeedWithTheRequestedVariance) {
  const Dataset zeros =
      Dataset::dense(20000, 5, std::vector<Feature>(100000, 0.0f), std::vector<std::int32_t>(20000, 0), 2);
  auto noise = make<Transform>("gaussian_noise", {{"sigma", "0.5"}});
  Dataset a = zeros, b = zeros, c = zeros;
  noise->apply(a, {0, 11, {}});
  noise->apply(b, {0, 11, {}});
  noise->apply(c, {1, 12, {}});
  EXPECT_EQ(a.row(3).values[2], b.row(3).values[2]);
  EXPECT_NE(a.row(3).values[2], c.row(3).values[2]);
  double sum = 0, squares = 0;
  for (auto v : a.mutable_values()) sum += v, squares += double(v) * v;
  EXPECT_NEAR(sum / 100000, 0.0, 0.006);  // 3 standard errors
  EXPECT_NEAR(squares / 100000, 0.25, 0.0035);
}

}  // namespace
}  // namespace glimpse::testing
