// spa: the learner's update is the support-class step along x; rounds without feedback change nothing.
#include <glimpse/algorithms/support_class_pa.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {
using Precisions = ::testing::Types<float, double>;

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
}  // namespace glimpse::testing
