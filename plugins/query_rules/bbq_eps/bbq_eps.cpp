// BBQ_eps: query when eta * x^T M_t^{-1} x >= eps^2, with eta a constant or, with
// eta_mode = theory, P1's eta_eps = 4 sigma^2(C) theta_t^2 (selective_theory.hpp).
#include <glimpse/algorithms/selective_theory.hpp>
#include <glimpse/algorithms/uncertainty_rule.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class BbqEps final : public glimpse::algorithms::UncertaintyRule {
 public:
  static glimpse::PluginSpec spec() {
    std::vector<glimpse::ParamSpec> params{
        glimpse::ParamSpec::real("eps", "0.1", "target accuracy epsilon").above(0).into(&BbqEps::eps_),
        glimpse::ParamSpec::real("eta", "1", "the constant eta_eps (eta_mode = constant)").above(0).into(&BbqEps::eta_),
        m0_param(), glimpse::algorithms::second_order_param(), glimpse::algorithms::sketch_rank_param()};
    for (auto& p : glimpse::algorithms::TheoryWidth::params()) params.push_back(std::move(p));
    return {.name = "bbq_eps",
            .kind = glimpse::PluginKind::query_rule,
            .revision = 3,  // 2: M^{-1} in the shared packed second-order state; 3: second_order sketch: a sketch_rank
                            // >= d keeps the exact inverse, default rank 20
            .summary = "queries when eta x^T M^{-1} x >= eps^2 (M: m0 I plus the queried x x^T)",
            .reference = "Agarwal, ICML 2013, section 4 (BBQ_eps, Theorem 1)",
            .params = std::move(params)};
  }
  explicit BbqEps(const glimpse::ParamValues& params) : UncertaintyRule(params), theory_(params, m0()) {}

  void reset(const glimpse::ProblemShape& shape) override {
    UncertaintyRule::reset(shape);
    theory_.reset(shape);
  }

 private:
  bool query(double r, const glimpse::Prediction&, std::int64_t round) const override {
    const double eta = theory_.enabled() ? theory_.eta_eps(round) : eta_;
    return eta * r >= eps_ * eps_;
  }
  double eps_ = 0.1, eta_ = 1;
  glimpse::algorithms::TheoryWidth theory_;
};

}  // namespace

GLIMPSE_PLUGIN(BbqEps)
