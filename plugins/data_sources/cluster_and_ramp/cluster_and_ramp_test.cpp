// cluster_and_ramp's unit tests: where the rows lie, their p(y|x) against the formula, the labels' frequencies
// against p(y|x), and one draw per trial.
#include <gtest/gtest.h>

#include <cmath>
#include <glimpse/testing.hpp>

namespace {

using glimpse::testing::plugins;  // this build's plugins, loaded once

glimpse::Dataset draw(const std::map<std::string, std::string>& params, std::uint64_t key) {
  return plugins().make<glimpse::DataSource>("cluster_and_ramp", params)->load_for_seed({.seed = 0, .key = key});
}

TEST(ClusterAndRamp, RowsLieInTheClusterOrOnTheRampWithTheStatedProbabilities) {
  const std::int64_t n = 40000;
  const glimpse::Dataset data =
      draw({{"n", "40000"}, {"cluster_mass", "0.3"}, {"slope", "4"}, {"num_classes", "4"}}, 7);
  ASSERT_EQ(data.size(), n);
  ASSERT_EQ(data.dim(), 1);
  ASSERT_EQ(data.num_classes(), 4);
  ASSERT_EQ(data.class_probabilities.size(), static_cast<std::size_t>(4 * n));
  std::int64_t in_cluster = 0, far_right = 0, far_right_class_2 = 0;
  double far_right_expected = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = data.row(i).values[0];
    const double* p = data.class_probabilities.data() + 4 * i;
    EXPECT_EQ(p[3], 0.0);  // the fourth class is left for a drift
    if (x < 0) {
      ++in_cluster;
      ASSERT_TRUE(x >= -3.0 && x <= -2.0) << x;
      ASSERT_EQ(p[0], 1.0);
      ASSERT_EQ(data.label(i), 0);
      continue;
    }
    ASSERT_TRUE(x >= 1.0 && x <= 3.0) << x;
    ASSERT_EQ(p[0], 0.0);
    // Worked by hand: P(y = 2 | x) = 1 / (1 + e^{-4 (x - 2)}), 0.5 at x = 2, 0.982 at x = 3.
    ASSERT_NEAR(p[2], 1.0 / (1.0 + std::exp(-4.0 * (x - 2.0))), 1e-6);
    ASSERT_NEAR(p[1] + p[2], 1.0, 1e-12);
    ASSERT_NE(data.label(i), 0);
    if (x > 2.5) {
      ++far_right;
      far_right_class_2 += data.label(i) == 2;
      far_right_expected += p[2];
    }
  }
  // The cluster's share: binomial(n, 0.3), std 0.0023.
  EXPECT_NEAR(static_cast<double>(in_cluster) / n, 0.3, 0.01);
  // The labels follow p(y|x): class 2's count right of 2.5 within 4 binomial std of its expectation.
  EXPECT_NEAR(static_cast<double>(far_right_class_2), far_right_expected,
              4 * std::sqrt(static_cast<double>(far_right) * 0.25));
}

TEST(ClusterAndRamp, EachTrialDrawsItsOwnRowsAndTheSameKeyTheSameRows) {
  const std::map<std::string, std::string> params{{"n", "100"}};
  const auto rows = [](const glimpse::Dataset& d) {
    std::vector<double> out;
    for (std::int64_t i = 0; i < d.size(); ++i) out.insert(out.end(), {d.row(i).values[0], double(d.label(i))});
    return out;
  };
  const glimpse::Dataset a = draw(params, 1), b = draw(params, 1), c = draw(params, 2);
  EXPECT_EQ(rows(a), rows(b));
  EXPECT_NE(rows(a), rows(c));
  EXPECT_TRUE(plugins().make<glimpse::DataSource>("cluster_and_ramp", params)->per_seed());
  EXPECT_FALSE(plugins().make<glimpse::DataSource>("cluster_and_ramp", {{"per_trial", "none"}})->per_seed());
}

}  // namespace
