// avg_perceptron (APH Perceptron): the first update by hand, singleton sets give the
// margin Perceptron, and every update keeps sum_i w_i = 0 (shared checks in
// glimpse/algorithms/candidate_hinge_checks.hpp).
#include "candidate_hinge_checks.hpp"

namespace glimpse::testing {
namespace {

TEST(AvgPerceptron, HandComputedFirstUpdateSpreadsOverTheCandidates) {
  // From W = 0 all scores are 0 and the loss is 1; the rival is class 2, the one non-candidate; the step goes to
  // the candidates {0, 1} in equal halves.
  auto avg = make<Learner>("avg_perceptron", {{"precision", "double"}});
  avg->reset({2, 2, 3}, 0);
  const DenseRow x({1, 0});
  Prediction pred = prediction_for(3);
  avg->predict(x.view(), pred);
  avg->learn(x.view(), pred, CandidateSetFeedback{set_of({0, 1})});
  EXPECT_EQ(weights_of(*avg, 3, 2), (std::vector<std::vector<double>>{{0.5, 0}, {0.5, 0}, {-1, 0}}));
}

TEST(AvgPerceptron, SingletonSetsGiveTheMarginPerceptron) {
  expect_singletons_give_the_margin_perceptron("avg_perceptron");
}

TEST(AvgPerceptron, EveryUpdateKeepsTheColumnsSummingToZero) {
  expect_columns_sum_to_zero_every_round("avg_perceptron");
}

}  // namespace
}  // namespace glimpse::testing
