// The partial-label paper's "average instantaneous error rate": after every round, the running mean of the
// 0-1 loss of the prediction (made before the update) against the true label.
#include <algorithm>
#include <glimpse/algorithms/running_ratio.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class AverageError final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "average_error",
            .kind = glimpse::PluginKind::metric,
            .summary = "running mean of [predicted != true label]: final value and a curve every `record_every` rounds",
            .reference = "Bhattacharjee & Manwani, PAKDD 2020, section 5",
            .params = {glimpse::ParamSpec::integer("record_every", "100", "rounds between curve points (0: no curve)")
                           .at_least(0)
                           .into(&AverageError::record_every_)},
            .better = glimpse::Better::lower};
  }
  // Points at rounds E, 2E, ...
  void configure() {
    ratio_ = glimpse::algorithms::RunningRatioCurve(record_every_, std::max<std::int64_t>(record_every_, 1));
  }

  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override { ratio_.reset(total_rounds); }
  void observe(const glimpse::RoundRecord& r) override {
    ratio_.observe(r.round, r.prediction->predicted != r.truth->label);
  }
  void report(glimpse::MetricResults& out) const override { ratio_.report(out); }

 private:
  std::int64_t record_every_ = 100;
  glimpse::algorithms::RunningRatioCurve ratio_{0, 1};
};

}  // namespace

GLIMPSE_PLUGIN(AverageError)
