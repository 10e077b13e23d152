// DGS (Dekel, Gentile, Sridharan) with a free multiplier, as the selective-sampling paper's simulations use
// it (DGS-MOD): query when the gap between the learner's two best scores is at most
// c * sqrt(x^T M_t^{-1} x), optionally times sqrt(log t). With cs_selectron the scores are S_W^x(i); any
// learner's scores work. With eta_mode = theory the multiplier is P1's eta_DGS = 2 sigma(C) theta_t
// (selective_theory.hpp) instead of c.
#include <cmath>
#include <glimpse/algorithms/selective_theory.hpp>
#include <glimpse/algorithms/uncertainty_rule.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class Dgs final : public glimpse::algorithms::UncertaintyRule {
 public:
  static glimpse::PluginSpec spec() {
    std::vector<glimpse::ParamSpec> params{
        glimpse::ParamSpec::real("c", "1", "the multiplier eta_DGS (eta_mode = constant)").above(0).into(&Dgs::c_),
        glimpse::ParamSpec::choice("time_factor", "none", {"none", "sqrt_log_t"},
                                   "multiply the threshold by sqrt(log t) (unverified variant)")
            .into(&Dgs::time_factor_),
        m0_param(), glimpse::algorithms::second_order_param(), glimpse::algorithms::sketch_rank_param()};
    for (auto& p : glimpse::algorithms::TheoryWidth::params()) params.push_back(std::move(p));
    return {.name = "dgs",
            .kind = glimpse::PluginKind::query_rule,
            .revision = 3,  // 2: M^{-1} in the shared packed second-order state; 3: second_order sketch: a sketch_rank
                            // >= d keeps the exact inverse, default rank 20
            .summary = "queries when the two best scores are within c sqrt(x^T M^{-1} x) (DGS-MOD)",
            .reference = "Agarwal, ICML 2013, sections 4-5 (DGS, DGS-MOD)",
            .params = std::move(params)};
  }
  explicit Dgs(const glimpse::ParamValues& params) : UncertaintyRule(params), theory_(params, m0()) {}

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
    if (time_factor_ == TimeFactor::sqrt_log_t)
      threshold *= std::sqrt(std::log(static_cast<double>(std::max<std::int64_t>(round, 2))));
    return best - second <= threshold;
  }
  enum class TimeFactor { none, sqrt_log_t };  // the choices' order
  double c_ = 1;
  TimeFactor time_factor_ = TimeFactor::none;
  glimpse::algorithms::TheoryWidth theory_;
};

}  // namespace

GLIMPSE_PLUGIN(Dgs)
