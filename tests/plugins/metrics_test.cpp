// Metrics on a hand-made sequence of rounds.
#include "support.hpp"

namespace glimpse::test {
namespace {

// Feeds rounds whose proposed / predicted correctness follow the given patterns (true label 0).
MetricResults feed(Metric& metric, const std::vector<int>& proposed_right, const std::vector<int>& predicted_right) {
  metric.reset({0, 1, 3}, static_cast<std::int64_t>(proposed_right.size()));
  Prediction pred;
  pred.scores.resize(3);
  const Feedback feedback = NoFeedback{};
  for (std::size_t t = 0; t < proposed_right.size(); ++t) {
    RoundTruth truth{static_cast<std::int64_t>(t + 1), 0, {}};
    pred.proposed = proposed_right[t] ? 0 : 1;
    pred.predicted = predicted_right[t] ? 0 : 2;
    metric.observe({truth.round, &truth, &pred, &feedback, true});
  }
  MetricResults out;
  metric.report(out);
  return out;
}

TEST(OnlineAccuracy, FinalRatioAndCumulativeCurveAtRounds1PlusMultiplesOfE) {
  auto metric = make<Metric>("online_accuracy", {{"record_every", "2"}});
  const auto out = feed(*metric, {1, 0, 1, 1, 0}, {0, 0, 0, 0, 0});
  ASSERT_EQ(out.scalars.size(), 1u);
  EXPECT_DOUBLE_EQ(out.scalars[0].value, 3.0 / 5);
  ASSERT_EQ(out.curves.size(), 1u);
  EXPECT_EQ(out.curves[0].rounds, (std::vector<std::int64_t>{1, 3, 5}));
  EXPECT_EQ(out.curves[0].values, (std::vector<double>{1.0, 2.0 / 3, 3.0 / 5}));
  auto of_predicted = make<Metric>("online_accuracy", {{"of", "predicted"}, {"record_every", "0"}});
  const auto p = feed(*of_predicted, {1, 1, 1, 1}, {1, 0, 0, 0});
  EXPECT_DOUBLE_EQ(p.scalars[0].value, 0.25);
  EXPECT_TRUE(p.curves.empty());
}

TEST(WindowedAccuracy, MeansPerWindowIncludingTheLastPartialOne) {
  auto metric = make<Metric>("windowed_accuracy", {{"window", "2"}});
  const auto out = feed(*metric, {1, 1, 0, 1, 0}, {0, 0, 0, 0, 0});
  EXPECT_EQ(out.curves[0].rounds, (std::vector<std::int64_t>{2, 4, 5}));
  EXPECT_EQ(out.curves[0].values, (std::vector<double>{1.0, 0.5, 0.0}));
  EXPECT_DOUBLE_EQ(out.scalars[0].value, 0.5);  // the last full window
}

TEST(Mistakes, CountsPredictedAndProposedSeparately) {
  auto metric = make<Metric>("mistakes");
  const auto out = feed(*metric, {1, 0, 0}, {0, 0, 1});
  ASSERT_EQ(out.scalars.size(), 2u);
  EXPECT_EQ(out.scalars[0].suffix, "");
  EXPECT_DOUBLE_EQ(out.scalars[0].value, 2);
  EXPECT_EQ(out.scalars[1].suffix, "proposed");
  EXPECT_DOUBLE_EQ(out.scalars[1].value, 2);
}

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

TEST(Transforms, L2NormalizeAndMinmaxScale) {
  Dataset d = Dataset::dense(3, 2, {3, 4, 0, 0, 1, -1}, {0, 1, 0}, 2);
  make<Transform>("minmax_scale")->apply(d, {});
  // Feature 0 spans [0, 3], feature 1 spans [-1, 4].
  EXPECT_EQ(std::vector<float>(d.row(0).values, d.row(0).values + 2), (std::vector<float>{1, 1}));
  EXPECT_NEAR(d.row(1).values[0], -1.0, 1e-6);
  EXPECT_NEAR(d.row(1).values[1], -1.0 + 2.0 / 5, 1e-6);
  EXPECT_NEAR(d.row(2).values[0], -1.0 + 2.0 / 3, 1e-6);
  EXPECT_NEAR(d.row(2).values[1], -1.0, 1e-6);
  make<Transform>("l2_normalize")->apply(d, {});
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_NEAR(d.row(i).squared_norm(), 1.0, 1e-6);
  Dataset zero = Dataset::dense(1, 2, {0, 0}, {0}, 2);
  make<Transform>("l2_normalize")->apply(zero, {});
  EXPECT_EQ(zero.row(0).values[0], 0.0f);
  Dataset constant = Dataset::dense(2, 1, {5, 5}, {0, 1}, 2);
  make<Transform>("minmax_scale")->apply(constant, {});
  EXPECT_EQ(constant.row(1).values[0], 0.0f);
}

TEST(DatasetValidation, RefusesLabelsOutOfRangeAndNonFiniteValues) {
  EXPECT_EQ(error_of([] { Dataset::dense(2, 1, {1, 2}, {0, 2}, 2).validate("d"); }), "d: row 2: label 3 outside 1..2");
  EXPECT_EQ(error_of([] {
              Dataset::dense(2, 1, {1, NAN}, {0, 1}, 2).validate("d");
            }),
            "d: row 2, feature 1: value is not finite (nan)");
  EXPECT_EQ(error_of([] {
              Dataset::sparse(3, {0, 2}, {2, 1}, {1, 1}, {0}, 2).validate("d");
            }),
            "d: row 1: feature indices must be strictly increasing (3 then 2)");
}

}  // namespace
}  // namespace glimpse::test
