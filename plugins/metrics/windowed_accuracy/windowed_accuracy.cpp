// Accuracy within consecutive windows of W rounds: a learning curve without the cumulative average's lag.
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class WindowedAccuracy final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "windowed_accuracy",
            .kind = glimpse::PluginKind::metric,
            .summary =
                "curve of the mean accuracy in each window of `window` rounds (x = last round of the window); "
                "scalar: the last full window's accuracy",
            .params = {glimpse::algorithms::scored_label_param(&WindowedAccuracy::of_),
                       glimpse::ParamSpec::integer("window", "100", "rounds per window")
                           .at_least(1)
                           .into(&WindowedAccuracy::window_)},
            .better = glimpse::Better::higher};
  }
  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override {
    in_window_ = correct_in_window_ = last_round_ = 0;
    curve_ = {};
    curve_.rounds.reserve(static_cast<std::size_t>(total_rounds / window_ + 1));
    curve_.values.reserve(curve_.rounds.capacity());
  }
  void observe(const glimpse::RoundRecord& r) override {
    last_round_ = r.round;
    correct_in_window_ += glimpse::algorithms::scored_label_is_correct(r, of_);
    if (++in_window_ == window_) {
      curve_.rounds.push_back(r.round);
      curve_.values.push_back(static_cast<double>(correct_in_window_) / static_cast<double>(window_));
      in_window_ = correct_in_window_ = 0;
    }
  }
  void report(glimpse::MetricResults& out) const override {
    auto curve = curve_;
    if (in_window_ > 0) {  // the last, partial window
      curve.rounds.push_back(last_round_);
      curve.values.push_back(static_cast<double>(correct_in_window_) / static_cast<double>(in_window_));
    }
    if (!curve_.values.empty()) out.scalars.push_back({"", curve_.values.back()});
    out.curves.push_back(std::move(curve));
  }

 private:
  glimpse::algorithms::ScoredLabel of_ = glimpse::algorithms::ScoredLabel::proposed;
  std::int64_t window_ = 100;
  std::int64_t in_window_ = 0, correct_in_window_ = 0, last_round_ = 0;
  glimpse::MetricResults::Curve curve_;
};

}  // namespace

GLIMPSE_PLUGIN(WindowedAccuracy)
