// DGS (Dekel, Gentile, Sridharan) with a free multiplier, as the selective-sampling paper's simulations use
// it (DGS-MOD): query when the gap between the learner's two best scores is at most
// c * sqrt(x^T M_t^{-1} x), optionally times sqrt(log t). With cs_selectron the scores are S_W^x(i); any
// learner's scores work.
#include <cmath>
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class Dgs final : public glimpse::algorithms::UncertaintyRule {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "dgs",
            .kind = glimpse::PluginKind::query_rule,
            .summary = "queries when the two best scores are within c sqrt(x^T M^{-1} x) (DGS-MOD)",
            .reference = "Agarwal, ICML 2013, sections 4-5 (DGS, DGS-MOD); ALGORITHMS.md 7.1",
            .params = {glimpse::ParamSpec::real("c", "1", "the multiplier eta_DGS").above(0),
                       glimpse::ParamSpec::choice("time_factor", "none", {"none", "sqrt_log_t"},
                                                  "multiply the threshold by sqrt(log t) (unverified variant)"),
                       m0_param()}};
  }
  explicit Dgs(const glimpse::ParamValues& params)
      : UncertaintyRule(params), c_(params.real("c")), log_time_(params.text("time_factor") == "sqrt_log_t") {}

 private:
  bool query(double r, const glimpse::Prediction& pred, std::int64_t round) const override {
    double best = -INFINITY, second = -INFINITY;
    for (const double s : pred.scores) {
      if (s > best)
        second = best, best = s;
      else if (s > second)
        second = s;
    }
    double threshold = c_ * std::sqrt(r);
    if (log_time_) threshold *= std::sqrt(std::log(static_cast<double>(std::max<std::int64_t>(round, 2))));
    return best - second <= threshold;
  }
  double c_;
  bool log_time_;
};

}  // namespace

GLIMPSE_PLUGIN(Dgs)
