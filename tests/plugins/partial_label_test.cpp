// Candidate-label learners, oracle and metrics (ALGORITHMS.md sections 5 and 10).
#include <algorithm>
#include <cmath>
#include <glimpse/algorithms/candidate_hinge.hpp>
#include <set>

#include "support.hpp"

namespace glimpse::test {
namespace {

using algorithms::CandidateLoss;

// W as a K x d matrix, read through unit probes.
std::vector<std::vector<double>> weights_of(Learner& learner, int k, int d) {
  std::vector<std::vector<double>> w(k, std::vector<double>(d));
  Prediction pred;
  pred.scores.resize(k);
  for (int j = 0; j < d; ++j) {
    std::vector<Feature> e(d, 0.0f);
    e[j] = 1.0f;
    DenseRow probe(e);
    learner.predict(probe.view(), pred);
    for (int i = 0; i < k; ++i) w[i][j] = pred.scores[i];
  }
  return w;
}

std::vector<std::int32_t> set_of(std::initializer_list<std::int32_t> labels) { return labels; }

TEST(CandidateHinge, AverageIsAtLeastMaxAndBothAreTheHingeForASingleton) {
  algorithms::CandidateHinge hinge;
  for (const auto seed : property_seeds(200)) {
    Rng rng(seed);
    const int k = 3 + static_cast<int>(rng.below(4));
    hinge.reset(k);
    std::vector<double> s(k);
    for (auto& v : s) v = rng.normal();
    std::vector<std::int32_t> y;
    for (int i = 0; i < k; ++i)
      if (rng.below(2)) y.push_back(i);
    if (y.empty()) y.push_back(0);
    const auto avg = hinge.evaluate(s, y, CandidateLoss::average);
    const auto max = hinge.evaluate(s, y, CandidateLoss::max);
    EXPECT_GE(avg.loss, max.loss - 1e-12);
    EXPECT_GE(max.loss, 0.0);
    const std::vector<std::int32_t> single{y.front()};
    double best_other = -1e300;
    for (int i = 0; i < k; ++i)
      if (i != y.front()) best_other = std::max(best_other, s[i]);
    const double hinge_loss = std::max(0.0, 1 - s[y.front()] + best_other);
    EXPECT_NEAR(hinge.evaluate(s, single, CandidateLoss::average).loss, hinge_loss, 1e-12);
    EXPECT_NEAR(hinge.evaluate(s, single, CandidateLoss::max).loss, hinge_loss, 1e-12);
  }
  // Every class a candidate: nothing to push away, no loss.
  hinge.reset(3);
  EXPECT_EQ(hinge.evaluate(std::vector<double>{1, 2, 3}, set_of({0, 1, 2}), CandidateLoss::average).loss, 0.0);
}

// Scores are linear in W, so midpoint convexity in the scores is midpoint convexity in W.
TEST(CandidateHinge, AverageIsMidpointConvexAndMaxIsNot) {
  algorithms::CandidateHinge hinge;
  for (const auto seed : property_seeds(500)) {
    Rng rng(seed);
    const int k = 3 + static_cast<int>(rng.below(4));
    hinge.reset(k);
    std::vector<double> a(k), b(k), mid(k);
    for (int i = 0; i < k; ++i) a[i] = 2 * rng.normal(), b[i] = 2 * rng.normal(), mid[i] = (a[i] + b[i]) / 2;
    std::vector<std::int32_t> y;
    for (int i = 0; i < k - 1; ++i)
      if (rng.below(2)) y.push_back(i);
    if (y.empty()) y.push_back(0);
    const auto loss = [&](const std::vector<double>& s, CandidateLoss kind) { return hinge.evaluate(s, y, kind).loss; };
    EXPECT_LE(loss(mid, CandidateLoss::average),
              (loss(a, CandidateLoss::average) + loss(b, CandidateLoss::average)) / 2 + 1e-12);
  }
  // MPH's max over the candidates makes it non-convex; a fixed counterexample: Y = {0, 1}, the other class 2.
  hinge.reset(3);
  const std::vector<double> a{2, -2, 0}, b{-2, 2, 0}, mid{0, 0, 0};
  const auto y = set_of({0, 1});
  EXPECT_EQ(hinge.evaluate(a, y, CandidateLoss::max).loss, 0.0);
  EXPECT_EQ(hinge.evaluate(b, y, CandidateLoss::max).loss, 0.0);
  EXPECT_EQ(hinge.evaluate(mid, y, CandidateLoss::max).loss, 1.0);
}

TEST(PartialLabelLearners, HandComputedFirstUpdates) {
  const DenseRow x({1, 0});
  const std::vector<std::int32_t> y{0, 1};
  Prediction pred;
  pred.scores.resize(3);
  // From W = 0 all scores are 0, both losses are 1, the rival is class 2; Avg spreads over Y, Max takes class 0.
  auto avg = make<Learner>("avg_perceptron", {{"precision", "double"}});
  auto max = make<Learner>("max_perceptron", {{"precision", "double"}});
  for (auto* l : {avg.get(), max.get()}) {
    l->reset({2, 2, 3}, 0);
    l->predict(x.view(), pred);
    l->learn(x.view(), pred, CandidateSetFeedback{y});
  }
  EXPECT_EQ(weights_of(*avg, 3, 2), (std::vector<std::vector<double>>{{0.5, 0}, {0.5, 0}, {-1, 0}}));
  EXPECT_EQ(weights_of(*max, 3, 2), (std::vector<std::vector<double>>{{1, 0}, {0, 0}, {-1, 0}}));

  // Avg Pegasos, lambda 0.1. Round 1: eta 10, shrink 0: W = 10 * (0.5, 0.5, -1) x, norm sqrt(150) > 1/sqrt(0.1)
  // so scaled to radius sqrt(10). Round 2 on x2 = (0, 1), Y = {2}: eta 5, shrink 1/2, rival 0 (scores tie at 0):
  // row 2 += 5 x2, row 0 -= 5 x2, then projected again.
  auto pegasos = make<Learner>("avg_pegasos", {{"lambda", "0.1"}, {"precision", "double"}});
  pegasos->reset({2, 2, 3}, 0);
  pegasos->predict(x.view(), pred);
  pegasos->learn(x.view(), pred, CandidateSetFeedback{y});
  const double radius = std::sqrt(10.0);
  double c = radius / std::sqrt(150.0);
  auto w = weights_of(*pegasos, 3, 2);
  EXPECT_NEAR(w[0][0], 5 * c, 1e-12);
  EXPECT_NEAR(w[2][0], -10 * c, 1e-12);
  const DenseRow x2({0, 1});
  pegasos->predict(x2.view(), pred);
  pegasos->learn(x2.view(), pred, CandidateSetFeedback{set_of({2})});
  std::vector<std::vector<double>> expected{{2.5 * c, -5}, {2.5 * c, 0}, {-5 * c, 5}};
  double squared = 0;
  for (auto& row : expected)
    for (double v : row) squared += v * v;
  c = radius / std::sqrt(squared);
  w = weights_of(*pegasos, 3, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(w[i][j], expected[i][j] * c, 1e-12) << i << "," << j;
}

// Feeds the same random stream to several learners, with feedback built from the true label by `feedback`.
template <class MakeFeedback>
std::vector<std::vector<std::vector<double>>> run_stream(std::vector<Learner*> learners, int k, int d, int rounds,
                                                         std::uint64_t seed, MakeFeedback&& feedback) {
  Rng rng(seed);
  Prediction pred;
  pred.scores.resize(k);
  for (auto* l : learners) l->reset({rounds, d, k}, 0);
  for (int t = 0; t < rounds; ++t) {
    std::vector<Feature> v(d);
    for (auto& e : v) e = static_cast<Feature>(rng.normal());
    const DenseRow x(v);
    const auto y = static_cast<std::int32_t>(rng.below(k));
    for (auto* l : learners) {
      l->predict(x.view(), pred);
      l->learn(x.view(), pred, feedback(y));
    }
  }
  std::vector<std::vector<std::vector<double>>> result;
  for (auto* l : learners) result.push_back(weights_of(*l, k, d));
  return result;
}

TEST(PartialLabelLearners, SingletonSetsGiveTheExactLabelLearners) {
  const int k = 4, d = 3;
  auto avg = make<Learner>("avg_perceptron", {{"precision", "double"}});
  auto max = make<Learner>("max_perceptron", {{"precision", "double"}});
  auto margin = make<Learner>("perceptron", {{"margin", "1"}, {"precision", "double"}});
  std::int32_t label = 0;
  // Same stream (seed 3) twice: singleton candidate sets for the partial-label learners, labels for the Perceptron.
  const auto perceptrons = run_stream({avg.get(), max.get()}, k, d, 200, 3, [&](std::int32_t y) {
    label = y;
    return Feedback{CandidateSetFeedback{{&label, 1}}};
  });
  const auto reference =
      run_stream({margin.get()}, k, d, 200, 3, [](std::int32_t y) { return Feedback{LabelFeedback{y}}; });
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) {
      EXPECT_NE(reference[0][i][j], 0.0);
      EXPECT_NEAR(perceptrons[0][i][j], reference[0][i][j], 1e-9);
      EXPECT_NEAR(perceptrons[1][i][j], reference[0][i][j], 1e-9);
    }
  auto avg_pegasos = make<Learner>("avg_pegasos", {{"precision", "double"}});
  auto max_pegasos = make<Learner>("max_pegasos", {{"precision", "double"}});
  auto pegasos = make<Learner>("pegasos", {{"precision", "double"}});
  const auto pegasoses = run_stream({avg_pegasos.get(), max_pegasos.get(), pegasos.get()}, k, d, 200, 4,
                                    [](std::int32_t y) { return Feedback{LabelFeedback{y}}; });
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) {
      EXPECT_NEAR(pegasoses[0][i][j], pegasoses[2][i][j], 1e-9);
      EXPECT_NEAR(pegasoses[1][i][j], pegasoses[2][i][j], 1e-9);
    }
}

TEST(PartialLabelLearners, PegasosStaysInTheBallAndPerceptronsKeepRowSumsZero) {
  const int k = 5, d = 3;
  for (const char* name : {"avg_pegasos", "max_pegasos", "avg_perceptron", "max_perceptron"}) {
    SCOPED_TRACE(name);
    auto learner = make<Learner>(name, {{"precision", "double"}});
    learner->reset({500, d, k}, 0);
    auto oracle = make<FeedbackOracle>("candidate_set", {{"size", "2"}, {"max_size", "4"}});
    oracle->reset({500, d, k});
    Rng rng(9);
    Prediction pred;
    pred.scores.resize(k);
    for (int t = 1; t <= 300; ++t) {
      std::vector<Feature> v(d);
      for (auto& e : v) e = static_cast<Feature>(3 * rng.normal());
      const DenseRow x(v);
      const auto y = static_cast<std::int32_t>(rng.below(k));
      learner->predict(x.view(), pred);
      Rng round_rng(derive_key(1, static_cast<std::uint64_t>(t)));
      learner->learn(x.view(), pred, oracle->respond(x.view(), {t, y, {}}, pred, round_rng));
      const auto w = weights_of(*learner, k, d);
      double squared = 0;
      for (int j = 0; j < d; ++j) {
        double column_sum = 0;
        for (int i = 0; i < k; ++i) squared += w[i][j] * w[i][j], column_sum += w[i][j];
        if (std::string(name).find("perceptron") != std::string::npos) {
          ASSERT_NEAR(column_sum, 0.0, 1e-9) << "round " << t;  // APH/MPH updates keep sum_i w_i = 0
        }
      }
      if (std::string(name).find("pegasos") != std::string::npos) {
        ASSERT_LE(std::sqrt(squared), 1 / std::sqrt(0.1) + 1e-9) << "round " << t;
      }
    }
  }
}

TEST(PartialLabelLearners, FloatPegasosStaysFiniteAtASmallLambda) {
  // lambda = 1e-4: steps of 1e4 / t against a ball of radius 100, so the projection shrinks W = a V's scale by
  // orders of magnitude a round; V in float overflowed (NaN scores from round ~40) before the fold was moved up.
  const int k = 10, d = 20;
  for (const char* name : {"pegasos", "avg_pegasos", "max_pegasos"}) {
    SCOPED_TRACE(name);
    auto learner = make<Learner>(name, {{"precision", "float"}, {"lambda", "0.0001"}});
    learner->reset({2000, d, k}, 0);
    auto oracle =
        make<FeedbackOracle>(std::string(name) == "pegasos" ? "full" : "candidate_set",
                             std::string(name) == "pegasos" ? std::map<std::string, std::string>{}
                                                            : std::map<std::string, std::string>{{"size", "3"}});
    oracle->reset({2000, d, k});
    Rng rng(4);
    Prediction pred;
    pred.scores.resize(k);
    for (int t = 1; t <= 2000; ++t) {
      std::vector<Feature> v(d);
      double norm = 0;
      for (auto& e : v) e = static_cast<Feature>(rng.normal()), norm += double(e) * e;
      for (auto& e : v) e = static_cast<Feature>(e / std::sqrt(norm));
      const DenseRow x(v);
      learner->predict(x.view(), pred);
      for (const double s : pred.scores) ASSERT_TRUE(std::isfinite(s)) << "round " << t;
      Rng round_rng(derive_key(2, static_cast<std::uint64_t>(t)));
      const auto y = static_cast<std::int32_t>(rng.below(k));
      learner->learn(x.view(), pred, oracle->respond(x.view(), {t, y, {}}, pred, round_rng));
    }
  }
}

TEST(CandidateSetOracle, SetsHoldTheTruthHaveTheRequestedSizeAndAreUniform) {
  auto fixed = make<FeedbackOracle>("candidate_set", {{"size", "3"}});
  auto ranged = make<FeedbackOracle>("candidate_set", {{"size", "2"}, {"max_size", "4"}});
  fixed->reset({1, 1, 6});
  ranged->reset({1, 1, 6});
  const DenseRow x({1});
  Prediction pred;
  std::vector<int> joined(6, 0), sizes(5, 0);
  for (int t = 0; t < 30000; ++t) {
    Rng rng(derive_key(2, static_cast<std::uint64_t>(t)));
    const auto set = std::get<CandidateSetFeedback>(fixed->respond(x.view(), {t, 4, {}}, pred, rng)).labels;
    ASSERT_EQ(set.size(), 3u);
    ASSERT_EQ(set[0], 4);
    ASSERT_EQ(std::set<std::int32_t>(set.begin(), set.end()).size(), 3u);
    for (auto label : set) ++joined[label];
    Rng rng2(derive_key(3, static_cast<std::uint64_t>(t)));
    const auto other = std::get<CandidateSetFeedback>(ranged->respond(x.view(), {t, 0, {}}, pred, rng2)).labels;
    ++sizes[other.size()];
    ASSERT_EQ(std::count(other.begin(), other.end(), 0), 1);
  }
  for (int label : {0, 1, 2, 3, 5}) EXPECT_NEAR(joined[label] / 30000.0, 2.0 / 5, 0.012);  // 2 of the 5 others
  for (int s : {2, 3, 4}) EXPECT_NEAR(sizes[s] / 30000.0, 1.0 / 3, 0.012);
  Rng a(7), b(7);  // same stream, same set
  const auto first = std::get<CandidateSetFeedback>(fixed->respond(x.view(), {1, 2, {}}, pred, a)).labels;
  const std::vector<std::int32_t> kept(first.begin(), first.end());
  const auto second = std::get<CandidateSetFeedback>(fixed->respond(x.view(), {1, 2, {}}, pred, b)).labels;
  EXPECT_EQ(kept, std::vector<std::int32_t>(second.begin(), second.end()));
  EXPECT_EQ(error_of([&] {
              auto big = make<FeedbackOracle>("candidate_set", {{"size", "7"}});
              big->reset({1, 1, 6});
            }),
            "candidate set size 7 exceeds K = 6");
}

// per_row: a row keeps the set of its first round for the whole run (the partial-label group's code), whatever
// later rounds' streams draw; other rows get their own; reset (a new run) draws afresh.
TEST(CandidateSetOracle, PerRowKeepsEachRowsFirstSetForTheRun) {
  auto oracle = make<FeedbackOracle>("candidate_set", {{"size", "3"}, {"per_row", "true"}});
  oracle->reset({4, 1, 6});
  const DenseRow x({1});
  Prediction pred;
  const auto respond = [&](std::int64_t round, std::int32_t label, std::int64_t row) {
    Rng rng(derive_key(5, static_cast<std::uint64_t>(round)));
    const auto set =
        std::get<CandidateSetFeedback>(oracle->respond(x.view(), {round, label, {}, row}, pred, rng)).labels;
    return std::vector<std::int32_t>(set.begin(), set.end());
  };
  const auto first = respond(1, 2, 3);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0], 2);
  bool another_row_differs = false;
  for (std::int64_t round = 2; round < 40; ++round) {
    EXPECT_EQ(respond(round, 2, 3), first) << "round " << round;  // the same row: the same set
    another_row_differs = another_row_differs || respond(round, 2, round % 3) != first;
  }
  EXPECT_TRUE(another_row_differs);
  bool fresh = false;  // a new run: row 3 draws again (from whatever stream its first round has)
  for (std::int64_t run = 0; run < 20 && !fresh; ++run) {
    oracle->reset({4, 1, 6});
    fresh = respond(100 + run, 2, 3) != first;
  }
  EXPECT_TRUE(fresh);
}

TEST(CandidateSetOracle, CooccurrenceMatrixGivesEachLabelItsOwnProbability) {
  TempDir dir;
  const auto file = dir.path() / "q.txt";
  // Class 0's set takes 1 always, 2 with probability 0.3; class 2's takes 0 with 0.5; class 1 stays alone.
  { std::ofstream(file) << "# co-occurrence\n0.9 1 0.3\n0,0,0\n\n0.5 0 1  # diagonal ignored\n"; }
  auto oracle = make<FeedbackOracle>("candidate_set", {{"cooccurrence", file.string()}});
  oracle->reset({1, 1, 3});
  const DenseRow x({1});
  Prediction pred;
  std::vector<std::vector<int>> joined(3, std::vector<int>(3, 0));
  const int rounds = 20000;
  for (int t = 0; t < rounds; ++t)
    for (std::int32_t y = 0; y < 3; ++y) {
      Rng rng(derive_key(5, static_cast<std::uint64_t>(3 * t + y)));
      const auto set = std::get<CandidateSetFeedback>(oracle->respond(x.view(), {t, y, {}}, pred, rng)).labels;
      ASSERT_EQ(set[0], y);
      ASSERT_EQ(std::count(set.begin(), set.end(), y), 1);
      for (auto label : set) ++joined[static_cast<std::size_t>(y)][static_cast<std::size_t>(label)];
    }
  EXPECT_EQ(joined[0][1], rounds);
  EXPECT_NEAR(joined[0][2] / double(rounds), 0.3, 0.012);
  EXPECT_EQ(joined[1][0] + joined[1][2], 0);
  EXPECT_NEAR(joined[2][0] / double(rounds), 0.5, 0.012);
  EXPECT_EQ(joined[2][1], 0);

  EXPECT_EQ(error_of([&] {
              oracle->reset({1, 1, 4});
            }),
            file.string() + ": is a 3 x 3 matrix; expected K x K = 4 x 4 (rows and columns are the classes in order)");
  const auto refusal = [&](const std::string& text) {
    { std::ofstream(file) << text; }
    return error_of([&] { make<FeedbackOracle>("candidate_set", {{"cooccurrence", file.string()}}); });
  };
  const std::string at = "oracle 'candidate_set': " + file.string();
  EXPECT_EQ(refusal("0 1\n0.5 1.5\n"), at + ":2: entry 2 is 1.5; expected a probability in [0, 1]");
  EXPECT_EQ(refusal("0 1\n0.5\n"), at + ":2: row has 1 entries; the first row has 2");
  EXPECT_EQ(refusal("0 x\n"), at + ":1: expected a number, got 'x'");
  EXPECT_EQ(refusal("0 nan\n"), at + ":1: expected a number, got 'nan'");
  EXPECT_EQ(refusal("# empty\n"), at + ": no matrix rows");
}

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
}  // namespace glimpse::test
