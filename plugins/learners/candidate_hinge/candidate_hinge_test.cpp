// candidate_hinge.hpp (the candidate-label learners): the average and max losses' properties.
#include <algorithm>
#include "candidate_hinge.hpp"
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

using algorithms::CandidateLoss;

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

}  // namespace
}  // namespace glimpse::testing
