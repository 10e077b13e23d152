// Imbalance and label noise: the noisy_label oracle and the imbalance transform.
#include <glimpse/readers/matrix_file.hpp>
#include <numeric>
#include <span>

#include "support.hpp"

namespace glimpse::test {
namespace {

// The empirical P(reported j | true y) of an oracle over `draws` rounds per class.
std::vector<std::vector<double>> empirical_noise(FeedbackOracle& oracle, int k, int draws) {
  oracle.reset({1, 1, k});
  const DenseRow x({1});
  Prediction pred;
  std::vector<std::vector<double>> flips(static_cast<std::size_t>(k), std::vector<double>(static_cast<std::size_t>(k)));
  for (int y = 0; y < k; ++y)
    for (int t = 0; t < draws; ++t) {
      Rng rng(derive_key(static_cast<std::uint64_t>(y), static_cast<std::uint64_t>(t)));
      const auto f = oracle.respond(x.view(), {t, y, {}}, pred, rng);
      flips[static_cast<std::size_t>(y)][static_cast<std::size_t>(std::get<NoisyLabelFeedback>(f).label)] +=
          1.0 / draws;
    }
  return flips;
}

TEST(NoisyLabelOracle, EmpiricalFlipMatrixConvergesToTheRequestedOne) {
  const int draws = 40000;
  const auto uniform = empirical_noise(*make<FeedbackOracle>("noisy_label", {{"rate", "0.3"}}), 4, draws);
  for (int y = 0; y < 4; ++y)
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(uniform[y][j], y == j ? 0.7 : 0.1, 0.008) << y << "," << j;
  const auto pairwise =
      empirical_noise(*make<FeedbackOracle>("noisy_label", {{"model", "pairwise"}, {"rate", "0.25"}}), 3, draws);
  for (int y = 0; y < 3; ++y)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(pairwise[y][j], j == y ? 0.75 : (j == (y + 1) % 3 ? 0.25 : 0.0), 0.008) << y << "," << j;

  TempDir dir;
  const auto file = dir.path() / "noise.txt";
  { std::ofstream(file) << "0.5 0.5 0\n0 1 0\n0.2 0.3 0.5\n"; }
  const auto from_file =
      empirical_noise(*make<FeedbackOracle>("noisy_label", {{"model", "matrix"}, {"matrix", file.string()}}), 3, draws);
  const double expected[3][3] = {{0.5, 0.5, 0}, {0, 1, 0}, {0.2, 0.3, 0.5}};
  for (int y = 0; y < 3; ++y)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(from_file[y][j], expected[y][j], 0.008) << y << "," << j;
  // Deterministic: the same round stream gives the same label.
  auto first = make<FeedbackOracle>("noisy_label", {{"rate", "0.5"}}),
       second = make<FeedbackOracle>("noisy_label", {{"rate", "0.5"}});
  first->reset({1, 1, 5});
  second->reset({1, 1, 5});
  const DenseRow x({1});
  Prediction pred;
  for (std::uint64_t t = 0; t < 200; ++t) {
    Rng a(derive_key(9, t)), b(derive_key(9, t));
    ASSERT_EQ(std::get<NoisyLabelFeedback>(first->respond(x.view(), {1, 2, {}}, pred, a)).label,
              std::get<NoisyLabelFeedback>(second->respond(x.view(), {1, 2, {}}, pred, b)).label);
  }
  // Rate 0 is the full oracle.
  const auto clean = empirical_noise(*make<FeedbackOracle>("noisy_label", {{"rate", "0"}}), 3, 100);
  for (int y = 0; y < 3; ++y) EXPECT_DOUBLE_EQ(clean[y][y], 1.0);
}

TEST(NoisyLabelOracle, RefusesBadMatricesAndMismatchedParameters) {
  TempDir dir;
  const auto file = dir.path() / "noise.txt";
  { std::ofstream(file) << "0.5 0.4\n0 1\n"; }
  EXPECT_EQ(error_of([&] {
              make<FeedbackOracle>("noisy_label", {{"model", "matrix"}, {"matrix", file.string()}});
            }),
            "oracle 'noisy_label': " + file.string() + ":1: row sums to 0.9; a noise matrix row must sum to 1");
  EXPECT_EQ(error_of([&] {
              make<FeedbackOracle>("noisy_label", {{"model", "matrix"}});
            }),
            "oracle 'noisy_label': model 'matrix' needs the matrix parameter (a file)");
  EXPECT_EQ(error_of([&] {
              make<FeedbackOracle>("noisy_label", {{"matrix", file.string()}});
            }),
            "oracle 'noisy_label': the matrix parameter needs model 'matrix' (model is 'uniform')");
}

TEST(NoisyLabelOracle, FullFeedbackLearnersAcceptIt) {
  EXPECT_TRUE(registry().find("copa")->spec->accepts.contains(FeedbackKind::noisy_label));
  EXPECT_TRUE(registry().find("perceptron")->spec->accepts.contains(FeedbackKind::noisy_label));
}

Dataset balanced(int per_class, int k) {
  std::vector<Feature> values;
  std::vector<std::int32_t> labels;
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < per_class; ++i) values.push_back(static_cast<Feature>(c * 1000 + i)), labels.push_back(c);
  const auto n = static_cast<std::int64_t>(labels.size());
  return Dataset::dense(n, 1, std::move(values), std::move(labels), k);
}

std::vector<std::int64_t> class_counts(const Dataset& d) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(d.num_classes()));
  for (std::int64_t i = 0; i < d.size(); ++i) ++counts[static_cast<std::size_t>(d.label(i))];
  return counts;
}

TEST(ImbalanceTransform, GeometricAndOneRareProfilesPerSeed) {
  std::vector<std::int64_t> order(400);
  std::iota(order.begin(), order.end(), 0);
  const ProblemShape shape{400, 1, 4};  // rare_class defaults to K
  auto geometric = make<Transform>("imbalance", {{"ratio", "8"}}, &shape);
  EXPECT_TRUE(geometric->per_seed());
  Dataset a = balanced(100, 4), b = balanced(100, 4), c = balanced(100, 4);
  geometric->apply(a, {1, 101, order});
  geometric->apply(b, {1, 101, order});
  geometric->apply(c, {2, 202, order});
  // 8^(-k/3) = 1, 1/2, 1/4, 1/8 of 100 rows.
  EXPECT_EQ(class_counts(a), (std::vector<std::int64_t>{100, 50, 25, 13}));
  EXPECT_EQ(a.row(a.size() - 1).values[0], b.row(b.size() - 1).values[0]);  // same key, same rows
  std::vector<Feature> rows_a, rows_c;
  for (std::int64_t i = 0; i < a.size(); ++i)
    rows_a.push_back(a.row(i).values[0]), rows_c.push_back(c.row(i).values[0]);
  EXPECT_NE(rows_a, rows_c);  // another seed keeps other rows

  auto rare = make<Transform>("imbalance", {{"profile", "one_rare"}, {"ratio", "1000"}, {"rare_class", "2"}});
  Dataset d = balanced(100, 3);
  const std::span<const std::int64_t> order_d(order.data(), 300);  // the order covers exactly d's rows
  rare->apply(d, {1, 7, order_d});
  EXPECT_EQ(class_counts(d), (std::vector<std::int64_t>{100, 1, 100}));  // 0.1 rounds to 0: one row kept
  Dataset e = balanced(10, 3);
  EXPECT_EQ(error_of([&] {
              make<Transform>("imbalance", {{"profile", "one_rare"}, {"rare_class", "4"}})
                  ->apply(e, {1, 7, std::span<const std::int64_t>(order.data(), 30)});
            }),
            "rare_class 4 outside 1..K = 3");
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
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
    if (s.suffix == suffix) return s.value;
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
}  // namespace glimpse::test
