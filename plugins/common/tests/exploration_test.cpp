// exploration.hpp: the inverse-gap weighting distribution by hand.
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(InverseGapWeighting, MatchesTheHandComputedDistribution) {
  algorithms::InverseGapWeighting igw;
  igw.reset(3);
  Rng rng(1);
  igw.propose(std::vector<double>{0.2, 0.5, 0.9}, 10, rng);  // 1/(3 + 10*0.3) = 1/6, 1/(3 + 10*0.7) = 1/10
  EXPECT_NEAR(igw.probability(0), 11.0 / 15, 1e-15);
  EXPECT_NEAR(igw.probability(1), 1.0 / 6, 1e-15);
  EXPECT_NEAR(igw.probability(2), 1.0 / 10, 1e-15);
  igw.propose(std::vector<double>{0.2, 0.5, 0.9}, 0, rng);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(igw.probability(a), 1.0 / 3, 1e-15);
  igw.propose(std::vector<double>{0.5, 0.1, 0.1}, 4, rng);  // ties: the first cheapest is b
  EXPECT_NEAR(igw.probability(2), 1.0 / 3, 1e-15);
  EXPECT_NEAR(igw.probability(0), 1.0 / (3 + 4 * 0.4), 1e-15);
  EXPECT_NEAR(igw.probability(1), 1 - 1.0 / 3 - 1.0 / 4.6, 1e-15);
}

}  // namespace
}  // namespace glimpse::testing
