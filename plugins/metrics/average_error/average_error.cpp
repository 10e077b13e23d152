// The partial-label paper's "average instantaneous error rate": after every round, the running mean of the
// 0-1 loss of the prediction (made before the update) against the true label.
#include <glimpse/glimpse.hpp>

namespace {

class AverageError final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "average_error",
            .kind = glimpse::PluginKind::metric,
            .summary = "running mean of [predicted != true label]: final value and a curve every `record_every` rounds",
            .reference = "Bhattacharjee & Manwani, PAKDD 2020, section 5; ALGORITHMS.md 9.3",
            .params = {glimpse::ParamSpec::integer("record_every", "100", "rounds between curve points (0: no curve)")
                           .at_least(0)}};
  }
  explicit AverageError(const glimpse::ParamValues& params) : every_(params.integer("record_every")) {}
  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override {
    errors_ = rounds_ = 0;
    curve_ = {};
    if (every_ > 0) {
      curve_.rounds.reserve(static_cast<std::size_t>(total_rounds / every_ + 2));
      curve_.values.reserve(curve_.rounds.capacity());
    }
  }
  void observe(const glimpse::RoundRecord& r) override {
    ++rounds_;
    errors_ += r.prediction->predicted != r.truth->label;
    if (every_ > 0 && r.round % every_ == 0) {
      curve_.rounds.push_back(r.round);
      curve_.values.push_back(value());
    }
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", value()});
    if (every_ > 0) {
      auto curve = curve_;
      if (curve.rounds.empty() || curve.rounds.back() != rounds_) {
        curve.rounds.push_back(rounds_);
        curve.values.push_back(value());
      }
      out.curves.push_back(std::move(curve));
    }
  }

 private:
  double value() const { return rounds_ ? static_cast<double>(errors_) / static_cast<double>(rounds_) : 0.0; }
  std::int64_t every_;
  std::int64_t errors_ = 0, rounds_ = 0;
  glimpse::MetricResults::Curve curve_;
};

}  // namespace

GLIMPSE_PLUGIN(AverageError)
