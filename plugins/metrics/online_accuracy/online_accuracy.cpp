// Cumulative ratio of correct labels during training (CSPA paper, section 5: "ratio of correct proposed
// labels"), with the running ratio recorded every E rounds as the authors' code does (rounds 1, 1+E, ...).
#include <glimpse/algorithms/label_choice.hpp>
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
            .params = {glimpse::algorithms::scored_label_param(),
                       glimpse::ParamSpec::integer("record_every", "100", "rounds between curve points (0: no curve)")
                           .at_least(0)}};
  }
  explicit OnlineAccuracy(const glimpse::ParamValues& params)
      : proposed_(params.text("of") == "proposed"), every_(params.integer("record_every")) {}

  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override {
    correct_ = 0;
    rounds_ = 0;
    curve_ = {};
    if (every_ > 0) {
      curve_.rounds.reserve(static_cast<std::size_t>(total_rounds / every_ + 2));
      curve_.values.reserve(curve_.rounds.capacity());
    }
  }
  void observe(const glimpse::RoundRecord& r) override {
    ++rounds_;
    correct_ += glimpse::algorithms::scored_label_is_correct(r, proposed_);
    if (every_ > 0 && (r.round - 1) % every_ == 0) {
      curve_.rounds.push_back(r.round);
      curve_.values.push_back(ratio());
    }
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", ratio()});
    if (every_ > 0) {
      auto curve = curve_;
      if (curve.rounds.empty() || curve.rounds.back() != rounds_) {
        curve.rounds.push_back(rounds_);
        curve.values.push_back(ratio());
      }
      out.curves.push_back(std::move(curve));
    }
  }

 private:
  double ratio() const { return rounds_ ? static_cast<double>(correct_) / static_cast<double>(rounds_) : 0.0; }
  bool proposed_;
  std::int64_t every_;
  std::int64_t correct_ = 0, rounds_ = 0;
  glimpse::MetricResults::Curve curve_;
};

}  // namespace

GLIMPSE_PLUGIN(OnlineAccuracy)
