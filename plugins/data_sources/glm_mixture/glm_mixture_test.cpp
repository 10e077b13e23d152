// The selective-sampling paper's generator: deterministic, p(y|x) consistent with the labels, the
// specified scale of points.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

Dataset generate_glm_mixture(const std::map<std::string, std::string>& params) {
  return make<DataSource>("glm_mixture", params)->load();
}

TEST(GlmMixture, SameSeedSameDataDifferentSeedDifferentData) {
  const Dataset a = generate_glm_mixture({{"n", "50"}, {"dim", "40"}}), b = generate_glm_mixture({{"n", "50"}, {"dim", "40"}}),
                c = generate_glm_mixture({{"n", "50"}, {"dim", "40"}, {"seed", "1"}});
  EXPECT_EQ(a.row(7).values[3], b.row(7).values[3]);
  EXPECT_EQ(a.label(7), b.label(7));
  EXPECT_NE(a.row(7).values[3], c.row(7).values[3]);
}

TEST(GlmMixture, LabelsFollowTheEmittedProbabilitiesAndPointsHaveTheSpecifiedScale) {
  for (const char* link : {"logistic", "mismatch"}) {
    SCOPED_TRACE(link);
    const int k = 5, n = 20000, dim = 200;
    const Dataset d = generate_glm_mixture({{"n", std::to_string(n)}, {"dim", std::to_string(dim)}, {"link", link}});
    ASSERT_EQ(d.class_probabilities.size(), static_cast<std::size_t>(n * k));
    std::vector<double> expected(k, 0.0), variance(k, 0.0);
    std::vector<int> counts(k, 0);
    double squared_norms = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double total = 0;
      for (int c = 0; c < k; ++c) {
        const double p = d.class_probabilities[static_cast<std::size_t>(i * k + c)];
        ASSERT_GE(p, 0.0);
        total += p;
        expected[c] += p;
        variance[c] += p * (1 - p);
      }
      ASSERT_NEAR(total, 1.0, 1e-12);
      ++counts[d.label(i)];
      squared_norms += d.row(i).squared_norm();
    }
    for (int c = 0; c < k; ++c) EXPECT_NEAR(counts[c], expected[c], 4 * std::sqrt(variance[c])) << "class " << c;
    // E||x||^2 = E||mu||^2 + s^2 = 1 + 100 (||v||^2 has mean 1 for v ~ N(0, I/d0)); spread of the mean is small.
    EXPECT_NEAR(squared_norms / n, 101.0, 2.0);
  }
}

TEST(GlmMixture, CentredFractionMovesPointsToTheOrigin) {
  const Dataset all = generate_glm_mixture({{"n", "4000"}, {"dim", "50"}, {"noise", "0"}, {"centred_fraction", "1"}});
  for (std::int64_t i = 0; i < 10; ++i) EXPECT_EQ(all.row(i).squared_norm(), 0.0);
  EXPECT_NEAR(all.class_probabilities[0], 1.0 / 5, 1e-12);  // x = 0: every class equally likely
}

}  // namespace
}  // namespace glimpse::testing
