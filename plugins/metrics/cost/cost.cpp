// The realised cost-sensitive loss: C(y, prediction) summed over rounds (scalar) and averaged ("mean").
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/glimpse.hpp>
#include <vector>

namespace {

class Cost final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cost",
            .kind = glimpse::PluginKind::metric,
            .summary = "total and mean cost C(y, prediction) of the predictions under a cost matrix",
            .reference = "Agarwal, ICML 2013, section 2",
            .params = declared_params(),
            .better = glimpse::Better::lower};
  }
  explicit Cost(const glimpse::ParamValues& params) : costs_(params) {}  // the cost matrix reads its own
  void reset(const glimpse::ProblemShape& shape, std::int64_t) override {
    costs_.reset(shape.K);
    total_ = 0.0;
    rounds_ = 0;
  }
  void observe(const glimpse::RoundRecord& r) override {
    total_ += costs_(r.truth->label, glimpse::algorithms::scored_label(r, of_));
    ++rounds_;
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", total_});
    out.scalars.push_back({"mean", rounds_ ? total_ / static_cast<double>(rounds_) : 0.0});
  }

 private:
  static std::vector<glimpse::ParamSpec> declared_params() {
    auto params = glimpse::algorithms::cost_params();
    params.push_back(glimpse::algorithms::scored_label_param(&Cost::of_));
    return params;
  }

  glimpse::algorithms::CostMatrix costs_;
  glimpse::algorithms::ScoredLabel of_ = glimpse::algorithms::ScoredLabel::proposed;
  double total_ = 0.0;
  std::int64_t rounds_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(Cost)
