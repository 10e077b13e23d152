// full (and bandit): the label, and only the correctness of the proposal.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Oracles, FullGivesTheLabelBanditOnlyCorrectness) {
  auto full = make<FeedbackOracle>("full");
  auto bandit = make<FeedbackOracle>("bandit");
  Prediction pred;
  pred.proposed = 2;
  Rng rng(0);
  const DenseRow x({1});
  const RoundTruth truth{1, 2, {}};
  EXPECT_EQ(std::get<LabelFeedback>(full->respond(x.view(), truth, pred, rng)).label, 2);
  EXPECT_TRUE(std::get<CorrectnessFeedback>(bandit->respond(x.view(), truth, pred, rng)).correct);
  pred.proposed = 1;
  EXPECT_FALSE(std::get<CorrectnessFeedback>(bandit->respond(x.view(), truth, pred, rng)).correct);
}

}  // namespace
}  // namespace glimpse::testing
