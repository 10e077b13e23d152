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

// Wide rows (the transform's loops run in vector blocks and a remainder): every column scaled by the formula of
// ALGORITHMS.md 1.1 in double, then rounded to float; the constant column 5 becomes 0.
TEST(Transforms, MinmaxScaleOnWideRowsMatchesTheFormulaExactly) {
  const std::int32_t n = 7, d = 37;
  std::vector<float> values(static_cast<std::size_t>(n * d));
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = 0; j < d; ++j)
      values[static_cast<std::size_t>(i * d + j)] = j == 5 ? 2.5f : static_cast<float>((i * 31 + j * 17) % 11) - 3.3f * static_cast<float>(j);
  Dataset data = Dataset::dense(n, d, values, std::vector<std::int32_t>(n, 0), 2);
  make<Transform>("minmax_scale", {{"lower", "-1"}, {"upper", "2"}})->apply(data, {});
  for (std::int32_t j = 0; j < d; ++j) {
    double lo = values[static_cast<std::size_t>(j)], hi = lo;
    for (std::int32_t i = 0; i < n; ++i) {
      lo = std::min(lo, static_cast<double>(values[static_cast<std::size_t>(i * d + j)]));
      hi = std::max(hi, static_cast<double>(values[static_cast<std::size_t>(i * d + j)]));
    }
    for (std::int32_t i = 0; i < n; ++i) {
      const double v = values[static_cast<std::size_t>(i * d + j)];
      const float expected = hi > lo ? static_cast<float>(-1.0 + 3.0 * (v - lo) / (hi - lo)) : 0.0f;
      ASSERT_EQ(data.row(i).values[j], expected) << "row " << i << ", column " << j;
    }
  }
}

TEST(DatasetValidation, RefusesLabelsOutOfRangeAndNonFiniteValues) {
  EXPECT_EQ(error_of([] { Dataset::dense(2, 1, {1, 2}, {0, 2}, 2).validate("d"); }), "d: row 2: label 3 outside 1..2");
  EXPECT_EQ(error_of([] {
              Dataset::dense(2, 1, {1, NAN}, {0, 1}, 2).validate("d");
            }),
            "d: row 2, feature 1: value is not finite (nan)");
  std::vector<float> wide(40, 0.5f);
  wide[37] = -INFINITY;  // past the first vector blocks of the dense fast check
  EXPECT_EQ(error_of([&] { Dataset::dense(2, 20, wide, {0, 1}, 2).validate("d"); }),
            "d: row 2, feature 18: value is not finite (-inf)");
  EXPECT_EQ(error_of([] {
              Dataset::sparse(3, {0, 2}, {2, 1}, {1, 1}, {0}, 2).validate("d");
            }),
            "d: row 1: feature indices must be strictly increasing (3 then 2)");
}

}  // namespace
}  // namespace glimpse::test
