// bbq (with dgs and random beside it): the rules that follow the learner's uncertainty query less as it learns.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

// Draws i.i.d. Gaussian rows of dimension d and counts a rule's queries per block of rounds.
std::vector<int> queries_per_block(QueryRule& rule, int d, int blocks, int block_size) {
  rule.reset({blocks * block_size, d, 3});
  Rng rng(4);
  Prediction pred;
  pred.scores = {1.0, 0.0, -1.0};
  std::vector<int> counts(static_cast<std::size_t>(blocks), 0);
  std::vector<Feature> v(static_cast<std::size_t>(d));
  for (std::int64_t t = 1; t <= blocks * block_size; ++t) {
    for (auto& x : v) x = static_cast<Feature>(rng.normal() / std::sqrt(d));
    const DenseRow row(v);
    Rng round_rng(derive_key(8, static_cast<std::uint64_t>(t)));
    counts[static_cast<std::size_t>((t - 1) / block_size)] += rule.decide(row.view(), pred, t, round_rng);
  }
  return counts;
}

TEST(QueryRules, BbqAndDgsQueryLessAsTheyLearnRandomKeepsItsRate) {
  const auto bbq = queries_per_block(*make<QueryRule>("bbq", {{"kappa", "0.5"}}), 5, 4, 1000);
  EXPECT_GT(bbq[0], bbq[3]);
  EXPECT_GT(bbq[0], 0);
  const auto eps = queries_per_block(*make<QueryRule>("bbq_eps", {{"eps", "0.1"}}), 5, 4, 1000);
  EXPECT_GT(eps[0], eps[3]);
  // DGS with a fixed score gap of 1: queries while c sqrt(r) >= 1, i.e. while x is poorly covered.
  const auto dgs = queries_per_block(*make<QueryRule>("dgs", {{"c", "5"}}), 5, 4, 1000);
  EXPECT_GT(dgs[0], dgs[3]);
  const auto random = queries_per_block(*make<QueryRule>("random", {{"probability", "0.2"}}), 5, 4, 1000);
  for (int c : random) EXPECT_NEAR(c / 1000.0, 0.2, 0.04);
  const auto budget =
      queries_per_block(*make<QueryRule>("random", {{"probability", "0.5"}, {"budget", "30"}}), 5, 4, 100);
  EXPECT_EQ(budget[0] + budget[1] + budget[2] + budget[3], 30);
  const auto always = queries_per_block(*make<QueryRule>("always"), 5, 2, 10);
  EXPECT_EQ(always, (std::vector<int>{10, 10}));
}

}  // namespace
}  // namespace glimpse::testing
