// Semi-supervised batch protocols: the split, singular value thresholding, the k-NN graph Laplacian, the ps3vt
// learner, and batch sweeps (cross-validation, determinism, validation).
#include <Eigen/Dense>
#include <array>
#include <atomic>
#include <glimpse/algorithms/knn_graph.hpp>
#include <glimpse/algorithms/singular_value_threshold.hpp>
#include <glimpse/split.hpp>
#include <thread>

#include "batch.hpp"
#include "hdf5.hpp"
#include "orchestrator.hpp"
#include "summary.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(SingularValueThreshold, KeepsTheHeadAndShrinksTheTailByHand) {
  // Q = diag(3, 2, 0.5) padded to 4 x 3: theta = 1, tau = 1 gives diag(3, 1, 0).
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(4, 3);
  q(0, 0) = 3, q(1, 1) = 2, q(2, 2) = 0.5;
  algorithms::TailThreshold svt;
  svt.apply(q, 1, 1.0);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(4, 3);
  expected(0, 0) = 3, expected(1, 1) = 1;
  EXPECT_LT((q - expected).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((svt.values() - Eigen::Vector3d(3, 1, 0)).cwiseAbs().maxCoeff(), 1e-12);
  // Its transpose (more columns than rows) goes through the other Gram matrix: the same result, transposed.
  Eigen::MatrixXd wide = Eigen::MatrixXd::Zero(3, 4);
  wide(0, 0) = 3, wide(1, 1) = 2, wide(2, 2) = 0.5;
  svt.apply(wide, 1, 1.0);
  EXPECT_LT((wide - expected.transpose()).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(SingularValueThreshold, RandomMatricesKeepTheirSingularVectorsAndTheHead) {
  for (const auto seed : property_seeds(20)) {
    Rng rng(seed);
    const int d = 3 + static_cast<int>(rng.below(8)), k = 2 + static_cast<int>(rng.below(5));
    Eigen::MatrixXd q(d, k);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < k; ++j) q(i, j) = rng.normal();
    if (seed % 3 == 0) q.col(0) = q.col(1) * 2.0;  // rank-deficient: a zero singular value
    const int theta = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(d, k))));
    const double tau = rng.uniform();
    Eigen::JacobiSVD<Eigen::MatrixXd> reference(q, Eigen::ComputeThinU | Eigen::ComputeThinV);
    Eigen::MatrixXd result = q;
    algorithms::TailThreshold svt;
    svt.apply(result, theta, tau);
    // The closed form: same singular vectors, s_j kept for j < theta, max(0, s_j - tau) after.
    Eigen::VectorXd expected = reference.singularValues();
    for (Eigen::Index j = theta; j < expected.size(); ++j) expected[j] = std::max(0.0, expected[j] - tau);
    const Eigen::MatrixXd closed = reference.matrixU() * expected.asDiagonal() * reference.matrixV().transpose();
    EXPECT_LT((result - closed).cwiseAbs().maxCoeff(), 1e-10) << "seed " << seed;
    // Its singular values, sorted, are exactly those.
    Eigen::VectorXd got = Eigen::JacobiSVD<Eigen::MatrixXd>(result).singularValues();
    std::sort(expected.data(), expected.data() + expected.size(), std::greater<>());
    EXPECT_LT((got - expected).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((svt.values() - expected).cwiseAbs().maxCoeff(), 1e-7) << "seed " << seed;  // from the squares
    EXPECT_LT((svt.singular_values(q) - reference.singularValues()).cwiseAbs().maxCoeff(), 1e-7);
  }
}

TEST(KnnGraph, LaplacianRowsSumToZeroItIsPositiveSemidefiniteAndPIsXtLX) {
  Rng rng(3);
  const int n = 60, d = 4, k = 5;
  algorithms::PointMatrix x(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) x(i, j) = rng.normal();
  const auto graph = algorithms::build_knn_graph(x, k, algorithms::Bandwidth::mean_pairwise);
  const Eigen::MatrixXd l = graph.laplacian();
  EXPECT_LT((l * Eigen::VectorXd::Ones(n)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((l - l.transpose()).cwiseAbs().maxCoeff(), 0.0 + 1e-15);
  const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(l).eigenvalues();
  EXPECT_GT(eigenvalues.minCoeff(), -1e-10);
  const Eigen::MatrixXd dense_x = x;
  EXPECT_LT((graph.laplacian_product - dense_x.transpose() * l * dense_x).cwiseAbs().maxCoeff(), 1e-10);
  // Every point keeps its k nearest (an edge may also come from the other end): degree >= k edges.
  for (int i = 0; i < n; ++i) {
    int edges = 0, nearer = 0;
    for (Eigen::SparseMatrix<double>::InnerIterator it(graph.similarity, i); it; ++it) ++edges;
    EXPECT_GE(edges, k);
    // Brute force: the 5 nearest of i are neighbours.
    std::vector<std::pair<double, int>> all;
    for (int j = 0; j < n; ++j)
      if (j != i) all.emplace_back((x.row(i) - x.row(j)).squaredNorm(), j);
    std::sort(all.begin(), all.end());
    for (int m = 0; m < k; ++m) nearer += graph.similarity.coeff(i, all[static_cast<std::size_t>(m)].second) > 0;
    EXPECT_EQ(nearer, k);
  }
  // sigma: the mean distance over all ordered pairs.
  double total = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) total += (x.row(i) - x.row(j)).norm();
  EXPECT_NEAR(graph.sigma, total / (n * (n - 1.0)), 1e-10);
  EXPECT_NEAR(graph.similarity.coeff(0, 0), 0.0, 0.0);
}

TEST(BatchSplit, StratifiedDisjointAndTheSameForTheSameKey) {
  // 3 classes of 100, 60 and 40 rows.
  std::vector<std::int32_t> labels;
  for (int c = 0; c < 3; ++c) labels.insert(labels.end(), std::array{100, 60, 40}[c], c);
  std::vector<Feature> values(labels.size(), 1.0f);
  const Dataset data = Dataset::dense(static_cast<std::int64_t>(labels.size()), 1, values, labels, 3);
  const BatchSplit split{0.3, 0.5, 5};
  const BatchSplitRows a = make_batch_split(data, split, 11), b = make_batch_split(data, split, 11);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.labelled, b.labelled);
  EXPECT_EQ(a.fold, b.fold);
  EXPECT_NE(a.test, make_batch_split(data, split, 12).test);
  // Test: round(0.3 n_k) of each class; labelled: round(0.5 of each class's training rows).
  std::array<int, 3> test_per_class{}, labelled_per_class{};
  for (const auto row : a.test) ++test_per_class[static_cast<std::size_t>(data.label(row))];
  for (std::size_t i = 0; i < a.labelled.size(); ++i) {
    EXPECT_EQ(a.labels[i], data.label(a.train[static_cast<std::size_t>(a.labelled[i])]));
    ++labelled_per_class[static_cast<std::size_t>(a.labels[i])];
  }
  EXPECT_EQ(test_per_class, (std::array<int, 3>{30, 18, 12}));
  EXPECT_EQ(labelled_per_class, (std::array<int, 3>{35, 21, 14}));
  EXPECT_EQ(a.train.size() + a.test.size(), labels.size());
  std::vector<std::int64_t> all = a.train;
  all.insert(all.end(), a.test.begin(), a.test.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  // Five folds of 14 labelled points each, every class spread evenly (35 = 7 x 5, 21, 14 off by one at most).
  std::array<int, 5> fold_sizes{};
  for (const auto f : a.fold) ++fold_sizes[static_cast<std::size_t>(f)];
  EXPECT_EQ(fold_sizes, (std::array<int, 5>{14, 14, 14, 14, 14}));
}

TEST(BatchSplit, ALargerLabelledRateKeepsTheTestRowsAndLabelsASuperset) {
  std::vector<std::int32_t> labels;
  for (int i = 0; i < 300; ++i) labels.push_back(i % 4);
  const std::vector<Feature> values(labels.size(), 1.0f);
  const Dataset data = Dataset::dense(300, 1, values, labels, 4);
  const BatchSplitRows low = make_batch_split(data, {0.3, 0.2, 0}, 5), high = make_batch_split(data, {0.3, 0.6, 0}, 5);
  EXPECT_EQ(low.test, high.test);
  EXPECT_TRUE(std::includes(high.labelled.begin(), high.labelled.end(), low.labelled.begin(), low.labelled.end()));
  EXPECT_GT(high.labelled.size(), 2 * low.labelled.size());
  // A protocol states the rate per dataset with "labelled".
  const Protocol protocol = parse_protocol(R"({"kind": "batch",
      "datasets": [{"source": "gaussians", "name": "g20", "labelled": 0.2}, {"source": "gaussians", "name": "g60"}],
      "learners": [{"name": "ps3vt"}], "metrics": [{"name": "test_error"}]})",
                                           "b.json", ".", registry());
  EXPECT_EQ(protocol.datasets[0].labelled, 0.2);
  EXPECT_FALSE(protocol.datasets[1].labelled.has_value());
  EXPECT_FALSE(protocol.selection.maximize);  // batch metrics are errors
}

TEST(SplitShared, BuildsEachObjectOnceForConcurrentRequests) {
  SplitShared shared;
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const void>> got(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      got[static_cast<std::size_t>(t)] = shared.get("graph", [&] {
        ++builds;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::shared_ptr<const void>(std::make_shared<int>(7));
      });
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(builds.load(), 1);
  for (const auto& g : got) EXPECT_EQ(g, got.front());
}

// A training part held in memory, for fitting a batch learner by hand.
class MemoryProblem final : public BatchProblem {
 public:
  MemoryProblem(std::vector<DenseRow> points, std::vector<std::int64_t> labelled, std::vector<std::int32_t> labels,
                std::int32_t k)
      : points_(std::move(points)), labelled_(std::move(labelled)), labels_(std::move(labels)), k_(k) {}
  ProblemShape shape() const override {
    return {static_cast<std::int64_t>(points_.size()), static_cast<std::int32_t>(points_.front().values.size()), k_};
  }
  Instance point(std::int64_t i) const override { return points_[static_cast<std::size_t>(i)].view(); }
  std::span<const std::int64_t> labelled() const override { return labelled_; }
  std::span<const std::int32_t> labels() const override { return labels_; }
  bool iteration_done(std::int64_t iteration, double objective) override {
    iterations.push_back(iteration);
    objectives.push_back(objective);
    return true;
  }
  std::vector<std::int64_t> iterations;
  std::vector<double> objectives;
  int shared_builds = 0;

 protected:
  std::shared_ptr<const void> shared_object(const std::string&,
                                            const std::function<std::shared_ptr<const void>()>& build) override {
    ++shared_builds;
    return build();
  }

 private:
  std::vector<DenseRow> points_;
  std::vector<std::int64_t> labelled_;
  std::vector<std::int32_t> labels_;
  std::int32_t k_;
};

// Three separable classes along the axes, far enough out that a W inside the unit ball has margin >= 1:
// x = 4 e_c (plus small noise) for class c.
MemoryProblem separable_toy(Rng& rng) {
  std::vector<DenseRow> points;
  std::vector<std::int64_t> labelled;
  std::vector<std::int32_t> labels;
  for (int i = 0; i < 60; ++i) {
    const int c = i % 3;
    std::vector<Feature> v(3);
    for (auto& f : v) f = static_cast<Feature>(0.05 * rng.normal());
    v[static_cast<std::size_t>(c)] += 4.0f;
    points.emplace_back(v);
    if (i < 30) labelled.push_back(i), labels.push_back(c);
  }
  return {std::move(points), std::move(labelled), std::move(labels), 3};
}

TEST(Ps3vt, WithoutGraphAndTailTermsItReachesTheHingeOptimumOnSeparableData) {
  for (const std::string mode : {"gd", "sgd"}) {
    SCOPED_TRACE(mode);
    Rng rng(5);
    MemoryProblem problem = separable_toy(rng);
    auto learner = make<Learner>("ps3vt", {{"variant", "linear_mc"},
                                           {"tau_A", "1e-6"},
                                           {"mu", "10"},
                                           {"mode", mode},
                                           {"iterations", "600"},
                                           {"objective_points", "20"}});
    auto* batch = dynamic_cast<BatchLearner*>(learner.get());
    ASSERT_NE(batch, nullptr);
    batch->fit(problem, 1);
    EXPECT_EQ(problem.shared_builds, 0);  // linear_mc has no graph term
    ASSERT_EQ(problem.iterations.size(), 20u);
    EXPECT_EQ(problem.iterations.back(), 600);
    // J(0) = 1 (every hinge at 1); the optimum is tau_A ||W||^2 <= 1e-6 with every margin >= 1.
    EXPECT_LT(problem.objectives.back(), 1e-5);
    EXPECT_LT(problem.objectives.back(), problem.objectives.front() + 1e-12);
    Prediction pred;
    pred.scores.resize(3);
    for (std::int64_t i = 30; i < 60; ++i) {
      batch->evaluate(problem.point(i), pred);
      EXPECT_EQ(pred.predicted, i % 3);
    }
  }
}

TEST(Ps3vt, GraphTermUsesTheSharedLaplacianAndTailTermShrinksTheSpectrum) {
  Rng rng(6);
  MemoryProblem problem = separable_toy(rng);
  auto learner = make<Learner>(
      "ps3vt", {{"tau_I", "1e-3"}, {"tau_S", "100"}, {"theta", "0.34"}, {"mu", "10"}, {"iterations", "300"}});
  auto& batch = dynamic_cast<BatchLearner&>(*learner);
  batch.fit(problem, 1);
  EXPECT_EQ(problem.shared_builds, 1);
  // theta = floor(0.34 * 3) = 1: with a heavy tail weight the fitted W is (numerically) of rank 1.
  Eigen::MatrixXd w(3, 3);
  Prediction pred;
  pred.scores.resize(3);
  for (int j = 0; j < 3; ++j) {
    DenseRow e({0.0f, 0.0f, 0.0f});
    e.values[static_cast<std::size_t>(j)] = 1.0f;
    batch.evaluate(e.view(), pred);
    for (int c = 0; c < 3; ++c) w(j, c) = pred.scores[static_cast<std::size_t>(c)];
  }
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(w).singularValues();
  EXPECT_GT(s[0], 0.1);
  EXPECT_LT(s[1], 1e-9);
  EXPECT_LE(w.norm(), 1.0 + 1e-12);  // the projection onto the unit ball
}

// Scaling every feature by c is the same fit as the ball's radius R = c with mu/c^2, tau_A/c^2, tau_S/c (and the
// same tau_I): V = c W' holds after every step of the sub-gradient, thresholding and projection (the derivation is
// in ps3vt.cpp's `radius`). With c = 2 every factor is a power of two, so the two fits agree to rounding.
TEST(Ps3vt, ScalingTheFeaturesByCIsTheRadiusC) {
  Rng rng(8);
  MemoryProblem original = separable_toy(rng);
  std::vector<DenseRow> doubled;
  std::vector<std::int64_t> labelled;
  std::vector<std::int32_t> labels;
  for (std::int64_t i = 0; i < 60; ++i) {
    std::vector<Feature> v;
    for (const Feature f : original.point(i).stored_values()) v.push_back(2.0f * f);
    doubled.emplace_back(v);
  }
  labelled.assign(original.labelled().begin(), original.labelled().end());
  labels.assign(original.labels().begin(), original.labels().end());
  MemoryProblem scaled(std::move(doubled), std::move(labelled), std::move(labels), 3);
  // Each fit: the shared settings plus its own step, weights and radius.
  const auto fit = [](MemoryProblem& problem, std::map<std::string, std::string> params) {
    params.insert({{"tau_I", "1e-3"}, {"theta", "0.34"}, {"iterations", "400"}});
    auto learner = make<Learner>("ps3vt", params);
    dynamic_cast<BatchLearner&>(*learner).fit(problem, 3);
    return learner;
  };
  auto with_scaled_features = fit(scaled, {{"mu", "0.4"}, {"tau_A", "0.04"}, {"tau_S", "2"}});
  auto with_radius = fit(original, {{"mu", "0.1"}, {"tau_A", "0.01"}, {"tau_S", "1"}, {"radius", "2"}});
  auto with_radius_one = fit(original, {{"mu", "0.1"}, {"tau_A", "0.01"}, {"tau_S", "1"}});
  Prediction a, b, c;
  for (auto* pred : {&a, &b, &c}) pred->scores.resize(3);
  double largest_score = 0.0, differs_from_radius_one = 0.0;
  for (std::int64_t i = 0; i < 60; ++i) {
    dynamic_cast<BatchLearner&>(*with_scaled_features).evaluate(scaled.point(i), a);
    dynamic_cast<BatchLearner&>(*with_radius).evaluate(original.point(i), b);
    dynamic_cast<BatchLearner&>(*with_radius_one).evaluate(original.point(i), c);
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(a.scores[k], b.scores[k], 1e-12 * (1.0 + std::abs(b.scores[k])));
      largest_score = std::max(largest_score, std::abs(b.scores[k]));
      differs_from_radius_one = std::max(differs_from_radius_one, std::abs(b.scores[k] - c.scores[k]));
    }
  }
  // The ball binds (margins of 4 ||W|| at most on points of norm 4): R = 1 scores at most 4, R = 2 beyond that.
  EXPECT_GT(largest_score, 4.5);
  EXPECT_GT(differs_from_radius_one, 0.5);
}

Protocol batch_protocol(const std::string& extra = "") {
  return parse_protocol(R"({"name": "b", "kind": "batch", "split": {"test": 0.3, "labelled": 0.4, "folds": 3},
      "datasets": [{"source": "gaussians", "params": {"n_per_class": 60, "sigma": 0.3}}],
      "learners": [{"name": "ps3vt", "grid": {"tau_S": [0, 0.01]}, "params": {"iterations": 400}},
                   {"name": "ps3vt", "as": "ps3vt_again", "grid": {"tau_S": [0, 0.01]},
                    "params": {"iterations": 400}},
                   {"name": "perceptron"}],
      "metrics": [{"name": "test_error"}], "seeds": 3, "passes": 3, "test_every": 100)" +
                            extra + "}",
                        "b.json", ".", registry());
}

TEST(BatchSweep, CrossValidatesChoosesPerSeedAndIsIdenticalAcrossThreadCounts) {
  TempDir dir;
  const Protocol protocol = batch_protocol();
  EXPECT_EQ(protocol.selection.metric, "cv_error");
  EXPECT_TRUE(protocol.selection.per_seed);
  sweep_quietly(protocol, dir.path() / "one.h5", 1);
  sweep_quietly(protocol, dir.path() / "two.h5", 2);
  const h5::Handle one = h5::open_file(dir.path() / "one.h5", false), two = h5::open_file(dir.path() / "two.h5", false);
  const auto runs = read_run_summaries(one), again = read_run_summaries(two);
  ASSERT_EQ(runs.size(), 15u);  // (2 + 2 + 1 grid points) x 3 seeds
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ASSERT_EQ(runs[i].metrics, again[i].metrics) << runs[i].id;
    ASSERT_EQ(runs[i].metrics.size(), 2u);
    EXPECT_EQ(runs[i].metrics[0].first, "cv_error");
    EXPECT_EQ(runs[i].metrics[1].first, "test_error");
    // 72 test rows of 240 (30% of 60 per class, 4 classes): the error is a multiple of 1/72.
    const double wrong = runs[i].metrics[1].second * 72;
    EXPECT_NEAR(wrong, std::round(wrong), 1e-9);
    EXPECT_LT(runs[i].metrics[1].second, 0.5);
  }
  // The same learner under two labels sees the same splits and seeds its fit the same way: identical results.
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(runs[i].metrics, runs[6 + i].metrics);
  // The objective curve and the test-error curve share the checkpoints (every 100 iterations).
  const h5::Handle curves = h5::open_group(one, "runs/" + runs[0].id + "/curves");
  EXPECT_EQ(h5::read_vector<std::int64_t>(h5::open_group(curves, "objective"), "round"),
            (std::vector<std::int64_t>{100, 200, 300, 400}));
  EXPECT_EQ(h5::read_vector<std::int64_t>(h5::open_group(curves, "test_error"), "round"),
            (std::vector<std::int64_t>{100, 200, 300, 400}));
  // Per-seed selection: each row averages, per seed, the run of least cv_error.
  const auto rows = summarize(runs, "cv_error", false, false, true);
  ASSERT_EQ(rows.size(), 3u);
  double expected = 0;
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    const RunSummary& a = runs[seed];
    const RunSummary& b = runs[3 + seed];
    expected += (b.metrics[0].second < a.metrics[0].second ? b : a).metrics[1].second / 3;
  }
  EXPECT_NEAR(rows[0].means[1], expected, 1e-12);
}

TEST(BatchSweep, ProtocolsAreCheckedForWhatBatchAndOnlineEachNeed) {
  EXPECT_EQ(error_of([] { batch_protocol(R"(, "oracle": {"name": "full"})"); }),
            "b.json: oracle: a batch protocol has no oracle: the labelled rows of its \"split\" keep their labels");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"kind": "batch", "split": {"test": 1.2},
                  "datasets": [{"source": "gaussians"}], "learners": [{"name": "ps3vt"}],
                  "metrics": [{"name": "test_error"}]})",
                             "b.json", ".", registry());
            }),
            "b.json: split.test: expected a fraction in (0, 1), got '1.2'");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"datasets": [{"source": "gaussians"}], "oracle": {"name": "full"},
                  "learners": [{"name": "ps3vt"}], "metrics": [{"name": "test_error"}]})",
                             "o.json", ".", registry());
            }),
            "o.json: learners[0].name: learner 'ps3vt' is fitted in batch protocols only (\"kind\": \"batch\"); it "
            "does not learn online");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"kind": "batch", "datasets": [{"source": "gaussians"}],
                  "learners": [{"name": "cspa"}], "metrics": [{"name": "test_error"}]})",
                             "b.json", ".", registry());
            }),
            "b.json: learners[0].name: learner 'cspa' can be fitted neither in batch nor by passes over labelled "
            "rows (it does not accept label feedback)");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"datasets": [{"source": "gaussians"}], "oracle": {"name": "full"},
                  "learners": [{"name": "perceptron"}], "metrics": [{"name": "test_error"}], "split": {}})",
                             "o.json", ".", registry());
            }),
            "o.json: split: only batch protocols (\"kind\": \"batch\") split their datasets");
}

// Transforms with fitted statistics in batch protocols (#29): standardize and minmax_scale learn from the seed's
// training rows only, so rewriting the test rows (here: x 1000 + 50) leaves every training row's value unchanged;
// fitted on the labelled rows, the unlabelled ones may change too; fitted on all rows, the training rows move.
TEST(FittedTransforms, ChangingOnlyHeldOutRowsLeavesEveryTrainingStatisticUnchanged) {
  TempDir dir;
  Rng rng(21);
  std::vector<std::array<double, 3>> rows(90);
  for (auto& row : rows)
    for (auto& v : row) v = rng.normal() * 3 + 1;
  const auto write = [&](const std::string& name, const std::vector<bool>& rewritten) {
    std::ofstream out(dir.path() / name);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (const double v : rows[i]) out << (rewritten[i] ? v * 1000 + 50 : v) << ",";
      out << i % 3 + 1 << "\n";
    }
  };
  const auto protocol = [&](const std::string& file, const std::string& fit_on) {
    return parse_protocol(R"({"kind": "batch", "split": {"test": 0.3, "labelled": 0.3, "fit_transforms_on": ")" +
                              fit_on + R"("}, "datasets": [{"source": "csv", "params": {"path": ")" +
                              (dir.path() / file).string() +
                              R"("}, "transforms": [{"name": "standardize"}, {"name": "minmax_scale"}]}],
        "learners": [{"name": "perceptron"}], "metrics": [{"name": "test_error"}], "seeds": [4]})",
                          "f.json", ".", registry());
  };
  write("original.csv", std::vector<bool>(rows.size(), false));
  const Protocol original = protocol("original.csv", "training");
  const auto prepared = prepare_datasets(original);
  ASSERT_TRUE(prepared[0].per_seed());  // each seed fits on its own split
  const auto before = prepared[0].materialize(4);
  const BatchSplitRows split = make_batch_split(*before, split_rule(original, original.datasets[0]),
                                                split_key(4, original.datasets[0].split_name()));
  std::vector<bool> test(rows.size(), false), unlabelled(rows.size(), false), labelled(rows.size(), false);
  for (const std::int64_t row : split.test) test[static_cast<std::size_t>(row)] = true;
  for (std::size_t i = 0; i < split.train.size(); ++i) unlabelled[static_cast<std::size_t>(split.train[i])] = true;
  for (const std::int64_t i : split.labelled) {
    unlabelled[static_cast<std::size_t>(split.train[static_cast<std::size_t>(i)])] = false;
    labelled[static_cast<std::size_t>(split.train[static_cast<std::size_t>(i)])] = true;
  }
  // The training rows span exactly [-1, 1] per feature: the extremes were fitted on them.
  for (std::int32_t j = 0; j < 3; ++j) {
    float low = 2, high = -2;
    for (const std::int64_t row : split.train)
      low = std::min(low, before->row(row).values[j]), high = std::max(high, before->row(row).values[j]);
    EXPECT_FLOAT_EQ(low, -1.0f);
    EXPECT_FLOAT_EQ(high, 1.0f);
  }
  const auto changed_rows = [&](const std::string& fit_on, const std::vector<bool>& rewritten) {
    const std::string name = fit_on + ".csv";
    write(name, rewritten);
    const auto after = prepare_datasets(protocol(name, fit_on))[0].materialize(4);
    const auto reference = prepare_datasets(protocol("original.csv", fit_on))[0].materialize(4);
    std::vector<bool> changed(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::int32_t j = 0; j < 3; ++j)
        changed[i] = changed[i] || after->row(static_cast<std::int64_t>(i)).values[j] !=
                                       reference->row(static_cast<std::int64_t>(i)).values[j];
    return changed;
  };
  EXPECT_EQ(changed_rows("training", test), test);  // only the rewritten rows differ
  std::vector<bool> held_out = test;
  for (std::size_t i = 0; i < rows.size(); ++i) held_out[i] = test[i] || unlabelled[i];
  EXPECT_EQ(changed_rows("labelled", held_out), held_out);
  const std::vector<bool> all = changed_rows("all", test);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_TRUE(all[i]) << "row " << i;  // fitted on every row
}

}  // namespace
}  // namespace glimpse::test
