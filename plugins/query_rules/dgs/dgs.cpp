// DGS (Dekel, Gentile, Sridharan) with a free multiplier, as the selective-sampling paper's simulations use
// it (DGS-MOD): query when the gap between the learner's two best scores is at most
// c * sqrt(x^T M_t^{-1} x), optionally times sqrt(log t). With cs_selectron the scores are S_W^x(i); any
// learner's scores work. With eta_mode = theory the multiplier is P1's eta_DGS = 2 sigma(C) theta_t
// (selective_theory.hpp) instead of c.
#include <cmath>
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/algorithms/selective_theory.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class Dgs final : public glimpse::algorithms::UncertaintyRule {
 public:
  static glimpse::PluginSpec spec() {
    std::vector<glimpse::ParamSpec> params{
        glimpse::ParamSpec::real("c", "1", "the multiplier eta_DGS (eta_mode = constant)").above(0),
        glimpse::ParamSpec::choice("time_factor", "none", {"none", "sqrt_log_t"},
                                   "multiply the threshold by sqrt(log t) (unverified variant)"),
        m0_param()};
    for (auto& p : glimpse::algorithms::TheoryWidth::params()) params.push_back(std::move(p));
    return {.name = "dgs",
            .kind = glimpse::PluginKind::query_rule,
            .summary = "queries when the two best scores are within c sqrt(x^T M^{-1} x) (DGS-MOD)",
            .reference = "Agarwal, ICML 2013, sections 4-5 (DGS, DGS-MOD); ALGORITHMS.md 7.1",
            .params = std::move(params)};
  }
  explicit Dgs(const glimpse::ParamValues& params)
      : UncertaintyRule(params),
        c_(params.real("c")),
        log_time_(params.text("time_factor") == "sqrt_log_t"),
        theory_(params, params.real("m0")) {}

  void reset(const glimpse::ProblemShape& shape) override {
    UncertaintyRule::reset(shape);
    theory_.reset(shape);
  }

 private:
  bool query(double r, const glimpse::Prediction& pred, std::int64_t round) const override {
    double best = -INFINITY, second = -INFINITY;
    for (const double s : pred.scores) {
      if (s > best)
        second = best, best = s;
      else if (s > second)
        second = s;
    }
    double threshold = (theory_.enabled() ? theory_.eta_dgs(round) : c_) * std::sqrt(r);
    if (log_time_) threshold *= std::sqrt(std::log(static_cast<double>(std::max<std::int64_t>(round, 2))));
    return best - second <= threshold;
  }
  double c_;
  bool log_time_;
  glimpse::algorithms::TheoryWidth theory_;
};

}  // namespace

GLIMPSE_PLUGIN(Dgs)
