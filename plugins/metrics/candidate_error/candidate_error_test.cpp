// candidate_error and average_error by hand.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(PartialLabelMetrics, AverageAndCandidateErrorsByHand) {
  auto average = make<Metric>("average_error", {{"record_every", "2"}});
  auto candidate = make<Metric>("candidate_error");
  average->reset({1, 1, 3}, 4);
  candidate->reset({1, 1, 3}, 4);
  Prediction pred;
  const std::vector<std::int32_t> set{0, 2};
  const int predicted[] = {0, 1, 2, 0};  // truth 0 every round
  for (int t = 1; t <= 4; ++t) {
    pred.predicted = pred.proposed = predicted[t - 1];
    const RoundTruth truth{t, 0, {}};
    const Feedback feedback = CandidateSetFeedback{set};
    average->observe({t, &truth, &pred, &feedback, true});
    candidate->observe({t, &truth, &pred, &feedback, true});
  }
  MetricResults a, c;
  average->report(a);
  candidate->report(c);
  EXPECT_DOUBLE_EQ(a.scalars[0].value, 0.5);  // rounds 2 and 3 wrong
  EXPECT_EQ(a.curves[0].rounds, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(a.curves[0].values, (std::vector<double>{0.5, 0.5}));
  EXPECT_DOUBLE_EQ(c.scalars[0].value, 0.25);  // only class 1 is outside {0, 2}

  // Exact-label rounds carry no set: the metric does not apply.
  candidate->reset({1, 1, 3}, 1);
  const RoundTruth truth{1, 0, {}};
  const Feedback label = LabelFeedback{0};
  candidate->observe({1, &truth, &pred, &label, true});
  MetricResults none;
  candidate->report(none);
  EXPECT_TRUE(std::isnan(none.scalars[0].value));
}

}  // namespace
}  // namespace glimpse::testing
