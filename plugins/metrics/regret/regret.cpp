// Regret to the Bayes predictor under a cost matrix: every round adds
// sum_j p_j(x) (C(j, prediction) - C(j, y*)), y* = argmin_i sum_j p_j(x) C(j, i), with the true p(y|x) that
// synthetic streams (glm_mixture, gaussians) provide. Refused on data without p(y|x).
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/algorithms/sampled_curve.hpp>
#include <glimpse/glimpse.hpp>
#include <vector>

namespace {

class Regret final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "regret",
            .kind = glimpse::PluginKind::metric,
            .summary = "cumulative expected cost of the predictions minus the Bayes predictor's (needs p(y|x))",
            .reference = "Agarwal, ICML 2013, section 2",
            .params = declared_params(),
            .better = glimpse::Better::lower};
  }
  explicit Regret(const glimpse::ParamValues& params)
      : costs_(params) {}  // the cost matrix's parameters are cost_matrix.hpp's
  void configure() { curve_ = glimpse::algorithms::SampledCurve("", record_every_, record_every_); }
  void reset(const glimpse::ProblemShape& shape, std::int64_t total_rounds) override {
    costs_.reset(shape.K);
    regret_ = 0.0;
    rounds_ = 0;
    curve_.reset(total_rounds);
  }
  void observe(const glimpse::RoundRecord& r) override {
    const auto& p = r.truth->class_probabilities;
    if (p.empty())
      throw glimpse::Error(
          "the regret metric needs the true p(y|x), which only synthetic streams provide (glm_mixture, gaussians)");
    const std::int32_t predicted = glimpse::algorithms::scored_label(r, of_);
    regret_ += costs_.expected(p, predicted) - costs_.expected(p, costs_.bayes(p));
    rounds_ = r.round;
    if (curve_.due(r.round)) curve_.record(r.round, regret_);
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", regret_});
    curve_.report(out, rounds_, regret_);
  }

 private:
  static std::vector<glimpse::ParamSpec> declared_params() {
    auto params = glimpse::algorithms::cost_params();
    params.push_back(glimpse::algorithms::scored_label_param(&Regret::of_));
    params.push_back(glimpse::ParamSpec::integer("record_every", "100", "rounds between curve points (0: no curve)")
                         .at_least(0)
                         .into(&Regret::record_every_));
    return params;
  }

  glimpse::algorithms::CostMatrix costs_;
  glimpse::algorithms::ScoredLabel of_ = glimpse::algorithms::ScoredLabel::proposed;
  double regret_ = 0.0;
  std::int64_t rounds_ = 0;
  std::int64_t record_every_ = 100;
  glimpse::algorithms::SampledCurve curve_{"", 0, 0};
};

}  // namespace

GLIMPSE_PLUGIN(Regret)
