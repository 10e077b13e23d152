// BBQ_eps: query when eta * x^T M_t^{-1} x >= eps^2 (ALGORITHMS.md 7.1, constant eta; the theory's eta,
// which depends on unknown constants, is not offered).
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class BbqEps final : public glimpse::QueryRule {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "bbq_eps",
            .kind = glimpse::PluginKind::query_rule,
            .summary = "queries when eta x^T M^{-1} x >= eps^2 (M: m0 I plus the queried x x^T)",
            .reference = "Agarwal, ICML 2013, section 4 (BBQ_eps); ALGORITHMS.md 7.1",
            .params = {glimpse::ParamSpec::real("eps", "0.1", "target accuracy epsilon").above(0),
                       glimpse::ParamSpec::real("eta", "1", "the constant eta_eps").above(0),
                       glimpse::ParamSpec::real("m0", "1", "M_1 = m0 I").above(0)}};
  }
  explicit BbqEps(const glimpse::ParamValues& params)
      : threshold_(params.real("eps") * params.real("eps") / params.real("eta")), m0_(params.real("m0")) {}
  void reset(const glimpse::ProblemShape& shape) override { inverse_.reset(shape.d, m0_); }
  bool decide(const glimpse::Instance& x, const glimpse::Prediction&, std::int64_t, glimpse::Rng&) override {
    const double r = inverse_.quadratic(x);
    if (r < threshold_) return false;
    inverse_.add_last(r);
    return true;
  }

 private:
  double threshold_, m0_;
  glimpse::algorithms::InverseTracker inverse_;
};

}  // namespace

GLIMPSE_PLUGIN(BbqEps)
