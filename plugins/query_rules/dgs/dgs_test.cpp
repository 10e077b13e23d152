// dgs: its query decision compares the score gap with the uncertainty, checked by hand.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(QueryRules, DgsComparesTheScoreGapWithTheUncertaintyByHand) {
  auto dgs = make<QueryRule>("dgs", {{"c", "1"}});
  dgs->reset({10, 2, 3});
  const DenseRow x({0.6f, 0.8f});  // ||x|| = 1: r = 1 before any query
  Prediction pred;
  Rng rng(1);
  pred.scores = {2.0, 0.5, 0.0};  // gap 1.5 > 1 * sqrt(1)
  EXPECT_FALSE(dgs->decide(x.view(), pred, 1, rng));
  pred.scores = {0.3, 1.0, 0.2};  // gap 0.7 <= 1: query, then r = 1/2 for the same x
  EXPECT_TRUE(dgs->decide(x.view(), pred, 2, rng));
  pred.scores = {0.0, 0.75, 0.0};  // gap 0.75 > sqrt(1/2) = 0.707
  EXPECT_FALSE(dgs->decide(x.view(), pred, 3, rng));
}

}  // namespace
}  // namespace glimpse::testing
