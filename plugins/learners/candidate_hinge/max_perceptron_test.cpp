// max_perceptron (MPH Perceptron): the first update by hand, singleton sets give the
// margin Perceptron, and every update keeps sum_i w_i = 0 (shared checks in
// glimpse/algorithms/candidate_hinge_checks.hpp).
#include "candidate_hinge_checks.hpp"

namespace glimpse::testing {
namespace {

TEST(MaxPerceptron, HandComputedFirstUpdateGoesToTheBestCandidate) {
  // From W = 0 all scores are 0 and the loss is 1; the rival is class 2, the one non-candidate; the step goes to
  // the best-scoring candidate, class 0 of the tied {0, 1} (ties go to the lowest index).
  auto max = make<Learner>("max_perceptron", {{"precision", "double"}});
  max->reset({2, 2, 3}, 0);
  const DenseRow x({1, 0});
  Prediction pred = prediction_for(3);
  max->predict(x.view(), pred);
  max->learn(x.view(), pred, CandidateSetFeedback{set_of({0, 1})});
  EXPECT_EQ(weights_of(*max, 3, 2), (std::vector<std::vector<double>>{{1, 0}, {0, 0}, {-1, 0}}));
}

TEST(MaxPerceptron, SingletonSetsGiveTheMarginPerceptron) {
  expect_singletons_give_the_margin_perceptron("max_perceptron");
}

TEST(MaxPerceptron, EveryUpdateKeepsTheColumnsSummingToZero) {
  expect_columns_sum_to_zero_every_round("max_perceptron");
}

}  // namespace
}  // namespace glimpse::testing
