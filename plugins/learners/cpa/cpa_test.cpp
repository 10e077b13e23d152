// cpa: the clipped loss by hand, and the complementary oracle it learns from.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Cpa, ClippedLossAndTheComplementaryOracle) {
  auto cpa = make<Learner>("cpa", {{"beta", "1"}, {"precision", "double"}});
  cpa->reset({1, 1, 3}, 0);
  Prediction pred;
  pred.scores.resize(3);
  const DenseRow x({1});
  cpa->predict(x.view(), pred);
  cpa->learn(x.view(), pred, ComplementaryFeedback{2});  // loss 1, beta 1: w_2 -= 2/3, others += 1/3
  EXPECT_EQ(scores_of(*cpa, x.view(), 3), (std::vector<double>{1.0 / 3, 1.0 / 3, -2.0 / 3}));
  cpa->learn(x.view(), pred, ComplementaryFeedback{2});  // now loss = 1 - 2/3 - 1/3 = 0: no change
  EXPECT_EQ(scores_of(*cpa, x.view(), 3), (std::vector<double>{1.0 / 3, 1.0 / 3, -2.0 / 3}));

  auto oracle = make<FeedbackOracle>("complementary");
  oracle->reset({1, 1, 4});
  std::vector<int> counts(4, 0);
  for (int t = 0; t < 30000; ++t) {
    Rng rng(derive_key(5, static_cast<std::uint64_t>(t)));
    ++counts[std::get<ComplementaryFeedback>(oracle->respond(x.view(), {t, 1, {}}, pred, rng)).label];
  }
  EXPECT_EQ(counts[1], 0);
  for (int c : {0, 2, 3}) EXPECT_NEAR(counts[c] / 30000.0, 1.0 / 3, 0.012);
}

}  // namespace
}  // namespace glimpse::testing
