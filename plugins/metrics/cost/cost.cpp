// The realised cost-sensitive loss: C(y, prediction) summed over rounds (scalar) and averaged ("mean").
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/glimpse.hpp>
#include <vector>

namespace {

std::vector<glimpse::ParamSpec> cost_metric_params() {
  auto params = glimpse::algorithms::cost_params();
  params.push_back(glimpse::algorithms::scored_label_param());
  return params;
}

class Cost final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cost",
            .kind = glimpse::PluginKind::metric,
            .summary = "total and mean cost C(y, prediction) of the predictions under a cost matrix",
            .reference = "Agarwal, ICML 2013, section 2; ALGORITHMS.md 7",
            .params = cost_metric_params()};
  }
  explicit Cost(const glimpse::ParamValues& params) : costs_(params), proposed_(params.text("of") == "proposed") {}
  void reset(const glimpse::ProblemShape& shape, std::int64_t) override {
    costs_.reset(shape.K);
    total_ = 0.0;
    rounds_ = 0;
  }
  void observe(const glimpse::RoundRecord& r) override {
    total_ += costs_(r.truth->label, proposed_ ? r.prediction->proposed : r.prediction->predicted);
    ++rounds_;
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", total_});
    out.scalars.push_back({"mean", rounds_ ? total_ / static_cast<double>(rounds_) : 0.0});
  }

 private:
  glimpse::algorithms::CostMatrix costs_;
  bool proposed_;
  double total_ = 0.0;
  std::int64_t rounds_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(Cost)
