// regret (with cost and queries): zero for the Bayes predictor, the others by hand.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(SelectiveSamplingMetrics, RegretOfTheBayesPredictorIsZeroAndOthersByHand) {
  auto regret = make<Metric>("regret", {{"costs", "block"}, {"cost_groups", "2"}});
  auto cost = make<Metric>("cost", {{"costs", "block"}, {"cost_groups", "2"}});
  auto queries = make<Metric>("queries", {{"record_every", "2"}});
  for (auto* m : {regret.get(), cost.get(), queries.get()}) m->reset({3, 1, 4}, 3);
  const std::vector<double> p{0.3, 0.3, 0.4, 0.0};
  Prediction pred;
  const Feedback none = NoFeedback{};
  // Round 1: the Bayes label (0); round 2: label 1, same group, also optimal; round 3: label 2, expected cost
  // 0.6 against the optimum 0.4. True label 2 every round: realised block costs 1, 1, 0.
  const int predicted[] = {0, 1, 2};
  for (std::int64_t t = 1; t <= 3; ++t) {
    pred.predicted = pred.proposed = predicted[t - 1];
    const RoundTruth truth{t, 2, p};
    for (auto* m : {regret.get(), cost.get(), queries.get()}) m->observe({t, &truth, &pred, &none, t != 2});
  }
  MetricResults r, c, q;
  regret->report(r);
  cost->report(c);
  queries->report(q);
  EXPECT_NEAR(r.scalars[0].value, 0.2, 1e-15);
  EXPECT_EQ(r.curves.size(), 1u);
  EXPECT_EQ(c.scalars[0].value, 2.0);
  EXPECT_DOUBLE_EQ(c.scalars[1].value, 2.0 / 3);
  EXPECT_EQ(q.scalars[0].value, 2.0);
  EXPECT_DOUBLE_EQ(q.scalars[1].value, 2.0 / 3);
  EXPECT_EQ(q.curves[0].rounds, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(q.curves[0].values, (std::vector<double>{1, 2}));
  // The Bayes predictor itself accumulates exactly zero regret.
  regret->reset({3, 1, 4}, 3);
  for (std::int64_t t = 1; t <= 3; ++t) {
    pred.predicted = pred.proposed = 0;
    const RoundTruth truth{t, 2, p};
    regret->observe({t, &truth, &pred, &none, true});
  }
  MetricResults bayes;
  regret->report(bayes);
  EXPECT_EQ(bayes.scalars[0].value, 0.0);
  // Streams without p(y|x) are refused.
  const RoundTruth bare{1, 0, {}};
  EXPECT_EQ(error_of([&] {
              regret->observe({1, &bare, &pred, &none, true});
            }),
            "the regret metric needs the true p(y|x), which only synthetic streams provide (glm_mixture, gaussians)");
}

}  // namespace
}  // namespace glimpse::testing
