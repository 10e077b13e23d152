// confusion: hand-computed classifiers, scoring against the feedback, and the online curve.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

// Feeds (truth, predicted) pairs to a metric as online rounds and returns its report.
MetricResults feed(Metric& metric, int k, const std::vector<std::pair<int, int>>& rounds) {
  metric.reset({static_cast<std::int64_t>(rounds.size()), 1, k}, static_cast<std::int64_t>(rounds.size()));
  Prediction pred;
  const Feedback none = NoFeedback{};
  std::int64_t t = 0;
  for (const auto& [y, predicted] : rounds) {
    pred.predicted = pred.proposed = predicted;
    const RoundTruth truth{++t, y, {}};
    metric.observe({t, &truth, &pred, &none, true});
  }
  MetricResults out;
  metric.report(out);
  return out;
}

double scalar(const MetricResults& out, const std::string& suffix) {
  for (const auto& s : out.scalars)
    if (s.name == suffix) return s.value;
  throw std::logic_error("no scalar " + suffix);
}

// `against feedback` scores the labels the oracle gave: a learner that always predicts the (noisy) given label
// is perfect against them and as wrong as the noise against the truth; rounds without a label are left out.
TEST(ConfusionMetric, AgainstFeedbackScoresTheGivenLabelsNotTheTruth) {
  auto truth_based = make<Metric>("confusion");
  auto feedback_based = make<Metric>("confusion", {{"against", "feedback"}});
  for (auto* metric : {truth_based.get(), feedback_based.get()}) metric->reset({40, 1, 2}, 40);
  Prediction pred;
  for (std::int64_t t = 1; t <= 40; ++t) {
    const std::int32_t y = static_cast<std::int32_t>(t % 2);
    const std::int32_t given = t % 4 == 1 ? 1 - y : y;  // a quarter of the labels flipped
    const Feedback feedback = t % 10 == 0 ? Feedback{NoFeedback{}} : Feedback{NoisyLabelFeedback{given}};
    pred.predicted = pred.proposed = given;
    const RoundTruth truth{t, y, {}};
    for (auto* metric : {truth_based.get(), feedback_based.get()}) metric->observe({t, &truth, &pred, &feedback, true});
  }
  MetricResults by_truth, by_feedback;
  truth_based->report(by_truth);
  feedback_based->report(by_feedback);
  EXPECT_EQ(scalar(by_feedback, ""), 0.0);
  EXPECT_EQ(scalar(by_feedback, "balanced_error"), 0.0);
  // t % 4 == 1 flips only odd rounds, i.e. class 1: 10 of its 20 examples answered 0, so recall(1) = 0.5.
  EXPECT_DOUBLE_EQ(scalar(by_truth, "balanced_error"), 0.25);
}

TEST(ConfusionMetric, PerfectConstantAndHandComputedClassifiers) {
  auto confusion = make<Metric>("confusion");
  std::vector<std::pair<int, int>> perfect, constant;
  for (int i = 0; i < 40; ++i) perfect.emplace_back(i % 4, i % 4), constant.emplace_back(i % 4, 2);
  const auto p = feed(*confusion, 4, perfect);
  EXPECT_EQ(scalar(p, ""), 0.0);
  EXPECT_EQ(scalar(p, "balanced_error"), 0.0);
  // Always class 3 (index 2) on 4 balanced classes: Gamma has ones in column 2 except its own row, so
  // ||Gamma||_op = sqrt(K - 1); three classes of four are always wrong.
  const auto c = feed(*confusion, 4, constant);
  EXPECT_NEAR(scalar(c, ""), std::sqrt(3.0), 1e-12);
  EXPECT_DOUBLE_EQ(scalar(c, "balanced_error"), 0.75);
  ASSERT_EQ(c.matrices.size(), 1u);
  EXPECT_EQ(c.matrices[0].values[2 * 4 + 2], 1.0);  // recall of the predicted class
  EXPECT_EQ(c.matrices[0].values[0 * 4 + 2], 1.0);
  // Two classes: class 0 (4 examples) labelled 1 once, class 1 (2 examples) labelled 0 once:
  // Gamma = [[0, 1/4], [1/2, 0]], norm 1/2, balanced error (1/4 + 1/2)/2.
  const auto h = feed(*confusion, 2, {{0, 0}, {0, 1}, {0, 0}, {0, 0}, {1, 0}, {1, 1}});
  EXPECT_NEAR(scalar(h, ""), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(scalar(h, "balanced_error"), 0.375);
  EXPECT_EQ(h.matrices[0].values, (std::vector<double>{0.75, 0.25, 0.5, 0.5}));
  // operator_norm reports the same value.
  auto norm = make<Metric>("operator_norm");
  EXPECT_NEAR(scalar(feed(*norm, 2, {{0, 0}, {0, 1}, {0, 0}, {0, 0}, {1, 0}, {1, 1}}), ""), 0.5, 1e-12);
  // A general matrix: the norm is the largest singular value (checked against (Gamma^T Gamma) by hand:
  // Gamma = [[0, 1/2, 0], [0, 0, 1], [1/2, 1/2, 0]] -> singular values^2 are the eigenvalues of
  // [[1/4, 1/4, 0], [1/4, 1/2, 0], [0, 0, 1]]: 1 and (3 +- sqrt(5))/8, so the norm is 1.
  const auto g = feed(*confusion, 3, {{0, 0}, {0, 1}, {1, 2}, {2, 0}, {2, 1}});
  EXPECT_NEAR(scalar(g, ""), 1.0, 1e-12);
}

TEST(ConfusionMetric, OnlineCurveAtChosenRounds) {
  auto confusion = make<Metric>("confusion", {{"record_every", "2"}});
  const auto out = feed(*confusion, 2, {{0, 1}, {1, 1}, {0, 0}, {1, 0}, {0, 0}});
  ASSERT_EQ(out.curves.size(), 2u);
  EXPECT_EQ(out.curves[0].rounds, (std::vector<std::int64_t>{2, 4, 5}));
  // Round 2: class 0 always wrong (1), class 1 right: Gamma = [[0,1],[0,0]] -> 1. Round 4: [[0,1/2],[1/2,0]].
  EXPECT_NEAR(out.curves[0].values[0], 1.0, 1e-12);
  EXPECT_NEAR(out.curves[0].values[1], 0.5, 1e-12);
  EXPECT_EQ(out.curves[1].values[1], 0.5);  // balanced error at round 4
}

}  // namespace
}  // namespace glimpse::testing
