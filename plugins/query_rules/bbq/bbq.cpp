// BBQ (Cesa-Bianchi, Gentile, Orabona): query when the instance is still uncertain in the metric of the
// queried ones, r_t = x^T M_t^{-1} x >= t^{-kappa}, with M_t = m0 I + sum of the queried x x^T.
#include <cmath>
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class Bbq final : public glimpse::QueryRule {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "bbq",
        .kind = glimpse::PluginKind::query_rule,
        .summary = "queries when x^T M^{-1} x >= t^(-kappa) (M: m0 I plus the queried x x^T)",
        .reference = "Agarwal, ICML 2013, section 4 (BBQ); ALGORITHMS.md 7.1",
        .params = {
            glimpse::ParamSpec::real("kappa", "0.5", "exponent of the threshold t^(-kappa)").above(0).below(1),
            glimpse::ParamSpec::real("m0", "1", "M_1 = m0 I (gamma / gamma_l; 1 with the default gamma)").above(0)}};
  }
  explicit Bbq(const glimpse::ParamValues& params) : kappa_(params.real("kappa")), m0_(params.real("m0")) {}
  void reset(const glimpse::ProblemShape& shape) override { inverse_.reset(shape.d, m0_); }
  bool decide(const glimpse::Instance& x, const glimpse::Prediction&, std::int64_t round, glimpse::Rng&) override {
    const double r = inverse_.quadratic(x);
    if (r < std::pow(static_cast<double>(round), -kappa_)) return false;
    inverse_.add_last(r);
    return true;
  }

 private:
  double kappa_, m0_;
  glimpse::algorithms::InverseTracker inverse_;
};

}  // namespace

GLIMPSE_PLUGIN(Bbq)
