// BBQ_eps: query when eta * x^T M_t^{-1} x >= eps^2 (ALGORITHMS.md 7.1, constant eta; the theory's eta,
// which depends on unknown constants, is not offered).
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class BbqEps final : public glimpse::algorithms::UncertaintyRule {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "bbq_eps",
            .kind = glimpse::PluginKind::query_rule,
            .summary = "queries when eta x^T M^{-1} x >= eps^2 (M: m0 I plus the queried x x^T)",
            .reference = "Agarwal, ICML 2013, section 4 (BBQ_eps); ALGORITHMS.md 7.1",
            .params = {glimpse::ParamSpec::real("eps", "0.1", "target accuracy epsilon").above(0),
                       glimpse::ParamSpec::real("eta", "1", "the constant eta_eps").above(0), m0_param()}};
  }
  explicit BbqEps(const glimpse::ParamValues& params)
      : UncertaintyRule(params), threshold_(params.real("eps") * params.real("eps") / params.real("eta")) {}

 private:
  bool query(double r, const glimpse::Prediction&, std::int64_t) const override { return r >= threshold_; }
  double threshold_;
};

}  // namespace

GLIMPSE_PLUGIN(BbqEps)
