// The CSPA paper's 2-D Gaussian set: deterministic, balanced, with the specified moments and p(y|x).
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

Dataset generate_gaussians(const std::map<std::string, std::string>& params) {
  return make<DataSource>("gaussians", params)->load();
}

TEST(Gaussians, SameSeedSameDataDifferentSeedDifferentData) {
  const Dataset a = generate_gaussians({{"seed", "3"}}), b = generate_gaussians({{"seed", "3"}}), c = generate_gaussians({{"seed", "4"}});
  EXPECT_EQ(a.row(10).values[0], b.row(10).values[0]);
  EXPECT_NE(a.row(10).values[0], c.row(10).values[0]);
}

TEST(Gaussians, ClassesHaveTheSpecifiedCentresAndVariance) {
  const double sigma = 0.25;  // a variance, as the paper writes it
  const Dataset d = generate_gaussians({{"n_per_class", "20000"}, {"sigma", "0.25"}});
  ASSERT_EQ(d.size(), 80000);
  ASSERT_EQ(d.dim(), 2);
  const double centres[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  for (int k = 0; k < 4; ++k) {
    double sum[2] = {0, 0}, sq[2] = {0, 0}, cross = 0;
    int count = 0;
    for (std::int64_t i = 0; i < d.size(); ++i) {
      if (d.label(i) != k) continue;
      ++count;
      const Instance x = d.row(i);
      for (int j = 0; j < 2; ++j) sum[j] += x.values[j], sq[j] += double(x.values[j]) * x.values[j];
      cross += double(x.values[0]) * x.values[1];
    }
    ASSERT_EQ(count, 20000);
    const double n = count;
    // Sampling error of a mean: sqrt(0.25 / 20000) = 0.0035; of a variance: 0.25 * sqrt(2 / 20000) = 0.0025.
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(sum[j] / n, centres[k][j], 0.015);
      EXPECT_NEAR(sq[j] / n - (sum[j] / n) * (sum[j] / n), sigma, 0.012);
    }
    EXPECT_NEAR(cross / n - (sum[0] / n) * (sum[1] / n), 0.0, 0.012);
  }
}

TEST(Gaussians, StdOptionAndClassProbabilities) {
  const Dataset d = generate_gaussians({{"n_per_class", "5000"}, {"sigma", "0.5"}, {"sigma_is", "std"}});
  double sq = 0;
  for (std::int64_t i = 0; i < 5000; ++i) sq += std::pow(d.row(i).values[0] - 1.0, 2);
  EXPECT_NEAR(sq / 5000, 0.25, 0.015);
  ASSERT_EQ(d.class_probabilities.size(), 4u * 20000u);
  // p(y|x) for x at a known point, by hand: x = row 0.
  const Instance x = d.row(0);
  const double centres[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  double w[4], total = 0;
  for (int k = 0; k < 4; ++k)
    total += w[k] =
        std::exp(-(std::pow(x.values[0] - centres[k][0], 2) + std::pow(x.values[1] - centres[k][1], 2)) / (2 * 0.25));
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(d.class_probabilities[k], w[k] / total, 1e-6);
}

}  // namespace
}  // namespace glimpse::testing
