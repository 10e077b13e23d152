// banditron: the expected update and the exploration distribution.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Banditron, ExpectedUpdateOverItsExplorationIsThePerceptronUpdate) {
  // From W = 0 the greedy label is 0; realise every proposal r with a seed that draws it, apply the update
  // for truth y, and weight it by P(r) = (1 - gamma)[r = 0] + gamma / K.
  const int k = 4, d = 3, y = 2;
  const double gamma = 0.2;
  const DenseRow x({0.5f, -1.0f, 2.0f});
  std::vector<std::vector<double>> expected_change(k, std::vector<double>(d, 0.0));
  for (int r = 0; r < k; ++r) {
    std::uint64_t seed = 0;
    Prediction pred;
    pred.scores.resize(k);
    std::unique_ptr<Learner> learner;
    do {
      learner = make<Learner>("banditron", {{"gamma", "0.2"}, {"precision", "double"}});
      learner->reset({1, d, k}, seed++);
      learner->predict(x.view(), pred);
    } while (pred.proposed != r);
    EXPECT_EQ(pred.predicted, 0);
    learner->learn(x.view(), pred, CorrectnessFeedback{r == y});
    const double p = (r == 0 ? 1 - gamma : 0.0) + gamma / k;
    for (int j = 0; j < d; ++j) {
      DenseRow e(std::vector<Feature>(d, 0.0f));
      e.values[j] = 1.0f;
      const auto w = scores_of(*learner, e.view(), k);  // column j of W
      for (int i = 0; i < k; ++i) expected_change[i][j] += p * w[i];
    }
  }
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j)
      EXPECT_NEAR(expected_change[i][j], double((i == y) - (i == 0)) * x.values[j], 1e-12) << i << "," << j;
}

TEST(Banditron, ProposalsFollowTheExplorationDistributionAndTheSeed) {
  const int k = 5;
  const DenseRow x({1.0f});
  std::vector<int> counts(k, 0);
  auto learner = make<Learner>("banditron", {{"gamma", "0.3"}});
  learner->reset({1, 1, k}, 7);
  Prediction pred;
  pred.scores.resize(k);
  const int n = 50000;
  std::vector<int> first_proposals;
  for (int t = 0; t < n; ++t) {
    learner->predict(x.view(), pred);  // no learning: W stays 0, greedy stays 0
    ++counts[pred.proposed];
    if (t < 20) first_proposals.push_back(pred.proposed);
  }
  for (int r = 0; r < k; ++r) EXPECT_NEAR(counts[r] / double(n), (r == 0 ? 0.7 : 0.0) + 0.3 / k, 0.01);
  auto again = make<Learner>("banditron", {{"gamma", "0.3"}});
  again->reset({1, 1, k}, 7);
  for (int t = 0; t < 20; ++t) {
    again->predict(x.view(), pred);
    EXPECT_EQ(pred.proposed, first_proposals[t]);
  }
}

}  // namespace
}  // namespace glimpse::testing
