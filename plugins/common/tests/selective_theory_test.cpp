// selective_theory.hpp (bbq_eps, dgs, cs_selectron): the theory's multipliers follow theta_t.
#include <glimpse/testing_gtest.hpp>
#include <numbers>

namespace glimpse::testing {
namespace {

// theta_1 for d = 2, K = 3, m0 = 1 (gamma = gamma_l = 1/(9e)), R = omega = 1, delta = 0.05: the formula of
// P1's Theorem 1 (selective_theory.hpp) written out once more here.
double theta_one() {
  const double gamma_l = 1.0 / (9.0 * std::numbers::e);
  return 8.0 * std::sqrt(6.0) / gamma_l * std::sqrt(std::log(3.0) * std::log(6.0 / 0.05)) + std::sqrt(2.0);
}

TEST(QueryRules, TheoryMultipliersFollowThetaT) {
  const DenseRow x({0.6f, 0.8f});  // ||x|| = 1: r = 1 on the first round
  Prediction pred;
  Rng rng(1);
  const double sigma = std::sqrt(2.0 / 3.0);  // 0/1 costs, K = 3
  const double eta_dgs = 2.0 * sigma * theta_one();
  ASSERT_GT(eta_dgs, 1000.0);  // the theory's constants are loose: ~1.8e3 here
  for (const double factor : {0.99, 1.01}) {
    auto dgs = make<QueryRule>("dgs", {{"eta_mode", "theory"}});
    dgs->reset({10, 2, 3});
    pred.scores = {factor * eta_dgs, 0.0, 0.0};  // gap = factor * eta_DGS * sqrt(r)
    EXPECT_EQ(dgs->decide(x.view(), pred, 1, rng), factor < 1) << factor;
  }
  const double eta_eps = 4.0 * sigma * sigma * theta_one() * theta_one();
  for (const double factor : {0.99, 1.01}) {
    auto bbq_eps =
        make<QueryRule>("bbq_eps", {{"eta_mode", "theory"}, {"eps", std::to_string(std::sqrt(factor * eta_eps))}});
    bbq_eps->reset({10, 2, 3});
    EXPECT_EQ(bbq_eps->decide(x.view(), pred, 1, rng), factor < 1) << factor;
  }
  // theta_t grows like sqrt(log t): a gap just above the round-1 threshold is queried later on.
  auto dgs = make<QueryRule>("dgs", {{"eta_mode", "theory"}, {"m0", "1"}});
  dgs->reset({10, 2, 3});
  pred.scores = {1.01 * eta_dgs, 0.0, 0.0};
  EXPECT_TRUE(dgs->decide(x.view(), pred, 1000, rng));
}

}  // namespace
}  // namespace glimpse::testing
