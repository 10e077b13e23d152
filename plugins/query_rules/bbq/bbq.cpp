// BBQ (Cesa-Bianchi, Gentile, Orabona): query when the instance is still uncertain in the metric of the
// queried ones, r_t = x^T M_t^{-1} x >= t^{-kappa}, with M_t = m0 I + sum of the queried x x^T.
#include <cmath>
#include <glimpse/algorithms/uncertainty_rule.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class Bbq final : public glimpse::algorithms::UncertaintyRule {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "bbq",
        .kind = glimpse::PluginKind::query_rule,
        .revision = 3,  // 2: M^{-1} in the shared packed second-order state; 3: second_order sketch: a sketch_rank >= d
                        // keeps the exact inverse, default rank 20
        .summary = "queries when x^T M^{-1} x >= t^(-kappa) (M: m0 I plus the queried x x^T)",
        .reference = "Agarwal, ICML 2013, section 4 (BBQ)",
        .params = {glimpse::ParamSpec::real("kappa", "0.5", "exponent of the threshold t^(-kappa)")
                       .above(0)
                       .below(1)
                       .into(&Bbq::kappa_),
                   m0_param(), glimpse::algorithms::second_order_param(), glimpse::algorithms::sketch_rank_param()}};
  }
  explicit Bbq(const glimpse::ParamValues& params) : UncertaintyRule(params) {}  // m0, the shared rules' own

 private:
  bool query(double r, const glimpse::Prediction&, std::int64_t round) const override {
    return r >= std::pow(static_cast<double>(round), -kappa_);
  }
  double kappa_ = 0.5;
};

}  // namespace

GLIMPSE_PLUGIN(Bbq)
