// ps3vt (P3): the hinge optimum without graph and tail terms, the shared Laplacian, and the radius reading.
#include <Eigen/Dense>
#include <glimpse/testing_gtest.hpp>

#include "knn_graph.hpp"

namespace glimpse::testing {
namespace {

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
    auto learner = make<BatchLearner>("ps3vt", {{"variant", "linear_mc"},
                                                {"tau_A", "1e-6"},
                                                {"mu", "10"},
                                                {"mode", mode},
                                                {"iterations", "600"},
                                                {"objective_points", "20"}});
    BatchLearner* batch = learner.get();
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
  auto learner = make<BatchLearner>(
      "ps3vt", {{"tau_I", "1e-3"}, {"tau_S", "100"}, {"theta", "0.34"}, {"mu", "10"}, {"iterations", "300"}});
  auto& batch = *learner;
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

// The authors' code's schedule and sampling, two iterations by hand. Two labelled points x_1 = (1, 0) of class 0
// and x_2 = (0, 1) of class 1, n = 2, mu = 4, tau_A = 0, so the steps are mu/(t + n) = 4/3 and 1. Whichever point
// the first pass's permutation takes first, its hinge is active at W = 0 (margin 0, the runner-up is the other
// class), so W gains 4/3 (e_y - e_other) x^T; the second iteration takes the other point, whose margin is still 0
// (W scores it 0 for both classes), and adds 1 (e_y - e_other) x^T. Uniform sampling could take one point twice.
TEST(Ps3vt, DecayingStepsOverEpochsMatchTheAuthorsCodeByHand) {
  const auto fitted = [](std::uint64_t seed) {
    std::vector<DenseRow> points;
    points.emplace_back(std::vector<Feature>{1.0f, 0.0f});
    points.emplace_back(std::vector<Feature>{0.0f, 1.0f});
    MemoryProblem problem(std::move(points), {0, 1}, {0, 1}, 2);
    auto learner = make<BatchLearner>("ps3vt", {{"variant", "linear_mc"},
                                                {"tau_A", "0"},
                                                {"mu", "4"},
                                                {"radius", "100"},
                                                {"schedule", "decaying"},
                                                {"sampling", "epochs"},
                                                {"iterations", "2"}});
    auto& batch = *learner;
    batch.fit(problem, seed);
    Eigen::Matrix2d w;  // w(j, c): class c's score of e_j
    Prediction pred;
    pred.scores.resize(2);
    for (int j = 0; j < 2; ++j) {
      DenseRow e({0.0f, 0.0f});
      e.values[static_cast<std::size_t>(j)] = 1.0f;
      batch.evaluate(e.view(), pred);
      for (int c = 0; c < 2; ++c) w(j, c) = pred.scores[static_cast<std::size_t>(c)];
    }
    return w;
  };
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const Eigen::Matrix2d w = fitted(seed);
    // Row j: the point e_j's scores. The first point taken got 4/3, the second 1.
    const double first = w(0, 0), second = w(1, 1);
    EXPECT_TRUE((std::abs(first - 4.0 / 3.0) < 1e-12 && std::abs(second - 1.0) < 1e-12) ||
                (std::abs(first - 1.0) < 1e-12 && std::abs(second - 4.0 / 3.0) < 1e-12))
        << "seed " << seed << ": " << first << ", " << second;
    EXPECT_NEAR(w(0, 1), -first, 1e-12);
    EXPECT_NEAR(w(1, 0), -second, 1e-12);
  }
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
    auto learner = make<BatchLearner>("ps3vt", params);
    learner->fit(problem, 3);
    return learner;
  };
  auto with_scaled_features = fit(scaled, {{"mu", "0.4"}, {"tau_A", "0.04"}, {"tau_S", "2"}});
  auto with_radius = fit(original, {{"mu", "0.1"}, {"tau_A", "0.01"}, {"tau_S", "1"}, {"radius", "2"}});
  auto with_radius_one = fit(original, {{"mu", "0.1"}, {"tau_A", "0.01"}, {"tau_S", "1"}});
  Prediction a, b, c;
  for (auto* pred : {&a, &b, &c}) pred->scores.resize(3);
  double largest_score = 0.0, differs_from_radius_one = 0.0;
  for (std::int64_t i = 0; i < 60; ++i) {
    with_scaled_features->evaluate(scaled.point(i), a);
    with_radius->evaluate(original.point(i), b);
    with_radius_one->evaluate(original.point(i), c);
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

}  // namespace
}  // namespace glimpse::testing
