// bpa: the step moves only the proposed row, to its target margin.
#include <algorithm>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Bpa, StepMovesOnlyTheProposedRowToItsTargetMargin) {
  for (const auto seed : property_seeds(60)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const int k = 3 + static_cast<int>(rng.below(3)), d = 2 + static_cast<int>(rng.below(3));
    auto bpa = make<Learner>("bpa", {{"gamma", "0.3"}, {"precision", "double"}});
    bpa->reset({100, d, k}, seed);
    scramble(*bpa, rng, k, d, 10);
    const DenseRow x = random_row(rng, d), probe = random_row(rng, d);
    Prediction pred;
    pred.scores.resize(k);
    const auto probe_before = scores_of(*bpa, probe.view(), k);
    bpa->predict(x.view(), pred);
    const double z = pred.scores[pred.proposed];
    const bool right = rng.below(2) == 0;
    bpa->learn(x.view(), pred, CorrectnessFeedback{right});
    const auto after = scores_of(*bpa, x.view(), k);
    const auto probe_after = scores_of(*bpa, probe.view(), k);
    for (int i = 0; i < k; ++i) {
      if (i != pred.proposed) {
        EXPECT_EQ(probe_after[i], probe_before[i]);
      }
    }
    if (right) {
      EXPECT_NEAR(after[pred.proposed], std::max(z, 1.0), 1e-9);
    } else {
      EXPECT_NEAR(after[pred.proposed], std::min(z, -1.0), 1e-9);
    }
  }
}

}  // namespace
}  // namespace glimpse::testing
