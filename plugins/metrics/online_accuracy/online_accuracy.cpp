// Cumulative ratio of correct labels during training (CSPA paper, section 5: "ratio of correct proposed
// labels"), with the running ratio recorded every E rounds as the authors' code does (rounds 1, 1+E, ...).
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/algorithms/running_ratio.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class OnlineAccuracy final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "online_accuracy",
            .kind = glimpse::PluginKind::metric,
            .summary =
                "final ratio of rounds whose label was correct; curve of the running ratio every `record_every` rounds",
            .reference = "CSPA paper (Kaneko et al. 2019), section 5",
            .params = {glimpse::algorithms::scored_label_param(&OnlineAccuracy::of_),
                       glimpse::ParamSpec::integer("record_every", "100", "rounds between curve points (0: no curve)")
                           .at_least(0)
                           .into(&OnlineAccuracy::record_every_)},
            .better = glimpse::Better::higher};
  }
  // Points at rounds 1, 1 + E, 1 + 2E, ... as the CSPA authors' code records them.
  void configure() { ratio_ = glimpse::algorithms::RunningRatioCurve(record_every_, 1); }

  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override { ratio_.reset(total_rounds); }
  void observe(const glimpse::RoundRecord& r) override {
    ratio_.observe(r.round, glimpse::algorithms::scored_label_is_correct(r, of_));
  }
  void report(glimpse::MetricResults& out) const override { ratio_.report(out); }

 private:
  glimpse::algorithms::ScoredLabel of_ = glimpse::algorithms::ScoredLabel::proposed;
  std::int64_t record_every_ = 100;
  glimpse::algorithms::RunningRatioCurve ratio_{0, 1};
};

}  // namespace

GLIMPSE_PLUGIN(OnlineAccuracy)
