// SPA: the support-class PA step (ALGORITHMS.md 1.5) by hand and against a brute-force QP optimum.
#include <cmath>
#include <glimpse/algorithms/support_class_pa.hpp>
#include <limits>

#include "support.hpp"

namespace glimpse::test {
namespace {

// Minimum of (1/2) a sum tau_i^2 subject to s_y + a tau_y - s_i - a tau_i >= 1, found by trying every
// active set S (equality on S, tau zero off S u {y}) and keeping the feasible candidate of least objective.
double brute_force_objective(const std::vector<double>& s, int y, double a) {
  const int k = static_cast<int>(s.size());
  double best = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << k); ++mask) {
    if (mask & (1u << y)) continue;
    double sum = 0.0;
    int size = 0;
    for (int i = 0; i < k; ++i)
      if (mask & (1u << i)) sum += 1.0 - s[y] + s[i], ++size;
    const double tau_y = sum / (a * (size + 1));
    std::vector<double> tau(k, 0.0);
    tau[y] = tau_y;
    for (int i = 0; i < k; ++i)
      if (mask & (1u << i)) tau[i] = tau_y - (1.0 - s[y] + s[i]) / a;
    bool feasible = true;
    for (int i = 0; i < k; ++i)
      if (i != y && s[y] + a * tau[y] - s[i] - a * tau[i] < 1.0 - 1e-9) feasible = false;
    if (!feasible) continue;
    double objective = 0.0;
    for (double t : tau) objective += 0.5 * a * t * t;
    best = std::min(best, objective);
  }
  return best;
}

TEST(SupportClassPa, MatchesBruteForceOptimumAndKktOnRandomCases) {
  for (const auto seed : property_seeds(300)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int k = 2 + static_cast<int>(rng.below(5));
    std::vector<double> s(k);
    for (auto& v : s) v = 2.0 * rng.normal();
    if (rng.below(4) == 0) s[1] = s[0];  // equal losses must not matter
    const int y = static_cast<int>(rng.below(static_cast<std::uint64_t>(k)));
    const double a = 0.1 + 3.0 * rng.uniform();
    algorithms::SupportClassPa step;
    step.reset(k);
    const bool changed = step.compute(s, y, a);
    const auto& tau = step.tau();

    double sum = 0.0, objective = 0.0;
    for (int i = 0; i < k; ++i) sum += tau[i], objective += 0.5 * a * tau[i] * tau[i];
    EXPECT_NEAR(sum, 0.0, 1e-12);
    EXPECT_NEAR(objective, brute_force_objective(s, y, a), 1e-9 * (1.0 + objective));
    for (int i = 0; i < k; ++i) {
      if (i == y) continue;
      const double margin = (s[y] + a * tau[y]) - (s[i] + a * tau[i]);
      EXPECT_GE(margin, 1.0 - 1e-9) << "class " << i;
      if (tau[i] != 0.0) {
        EXPECT_LT(tau[i], 0.0) << "multiplier lambda_i = -tau_i must be positive on the support set";
        EXPECT_NEAR(margin, 1.0, 1e-9) << "support classes end exactly at margin 1";
      }
    }
    bool violated = false;
    for (int i = 0; i < k; ++i) violated |= i != y && s[y] - s[i] < 1.0;
    EXPECT_EQ(changed, violated);
  }
}

TEST(SupportClassPa, ZeroNormInstanceChangesNothing) {
  algorithms::SupportClassPa step;
  step.reset(3);
  EXPECT_FALSE(step.compute(std::vector<double>{0, 0, 0}, 1, 0.0));
  for (double t : step.tau()) EXPECT_EQ(t, 0.0);
}

template <class T>
class SpaLearner : public ::testing::Test {
 public:
  static std::string precision() { return std::is_same_v<T, float> ? "float" : "double"; }
  static constexpr double tolerance = std::is_same_v<T, float> ? 1e-6 : 1e-12;
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpaLearner, Precisions);

// Hand-derived: two rounds from W = 0 (derivation in tests/README.md).
TYPED_TEST(SpaLearner, TwoRoundsMatchHandComputation) {
  auto spa = make<Learner>("spa", {{"precision", TestFixture::precision()}});
  spa->reset({2, 2, 3}, 0);
  Prediction pred;
  pred.scores.resize(3);
  const DenseRow x1({1, 0}), x2({1, 1});
  spa->predict(x1.view(), pred);
  EXPECT_EQ(pred.predicted, 0);  // ties at W = 0 go to the lowest index
  spa->learn(x1.view(), pred, LabelFeedback{0});
  spa->predict(x2.view(), pred);
  EXPECT_EQ(pred.predicted, 0);
  spa->learn(x2.view(), pred, LabelFeedback{2});
  // Expected W: w0 = (1/6, -1/2), w1 = (-1/3, 0), w2 = (1/6, 1/2). Read its columns through probes.
  const double expected[3][2] = {{1.0 / 6, -0.5}, {-1.0 / 3, 0.0}, {1.0 / 6, 0.5}};
  for (int j = 0; j < 2; ++j) {
    DenseRow probe({j == 0 ? 1.0f : 0.0f, j == 1 ? 1.0f : 0.0f});
    spa->predict(probe.view(), pred);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(pred.scores[k], expected[k][j], TestFixture::tolerance) << k << "," << j;
  }
}

// The learner applies exactly the helper's tau along x: checked on x itself and on an independent probe.
TEST(SpaLearnerDouble, UpdateIsTheSupportClassStepAlongX) {
  for (const auto seed : property_seeds(50)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int k = 2 + static_cast<int>(rng.below(5)), d = 1 + static_cast<int>(rng.below(5));
    auto spa = make<Learner>("spa", {{"precision", "double"}});
    spa->reset({100, d, k}, 0);
    Prediction pred, probe_pred;
    pred.scores.resize(k);
    probe_pred.scores.resize(k);
    const auto random_row = [&] {
      std::vector<Feature> v(d);
      for (auto& e : v) e = static_cast<Feature>(rng.normal());
      return DenseRow(v);
    };
    for (int t = 0; t < 20; ++t) {  // a random state
      const DenseRow x = random_row();
      spa->predict(x.view(), pred);
      spa->learn(x.view(), pred, LabelFeedback{static_cast<std::int32_t>(rng.below(k))});
    }
    const DenseRow x = random_row(), probe = random_row();
    const int y = static_cast<int>(rng.below(k));
    spa->predict(probe.view(), probe_pred);
    const auto probe_before = probe_pred.scores;
    spa->predict(x.view(), pred);
    const auto before = pred.scores;
    spa->learn(x.view(), pred, LabelFeedback{y});
    algorithms::SupportClassPa step;
    step.reset(k);
    step.compute(before, y, x.view().squared_norm());
    double x_dot_probe = 0;
    for (int j = 0; j < d; ++j) x_dot_probe += double(x.values[j]) * probe.values[j];
    spa->predict(x.view(), pred);
    spa->predict(probe.view(), probe_pred);
    for (int i = 0; i < k; ++i) {
      EXPECT_NEAR(pred.scores[i] - before[i], step.tau()[i] * x.view().squared_norm(), 1e-9);
      EXPECT_NEAR(probe_pred.scores[i] - probe_before[i], step.tau()[i] * x_dot_probe, 1e-9);
    }
    for (int i = 0; i < k; ++i)
      if (i != y) {
        EXPECT_GE(pred.scores[y] - pred.scores[i], 1.0 - 1e-9);
      }
  }
}

TEST(SpaLearnerDouble, IgnoresRoundsWithoutFeedback) {
  auto spa = make<Learner>("spa", {{"precision", "double"}});
  spa->reset({1, 2, 3}, 0);
  Prediction pred;
  pred.scores.resize(3);
  const DenseRow x({1, 2});
  spa->predict(x.view(), pred);
  spa->learn(x.view(), pred, NoFeedback{});
  spa->predict(x.view(), pred);
  for (double s : pred.scores) EXPECT_EQ(s, 0.0);
}

}  // namespace
}  // namespace glimpse::test
