// How many rounds asked for feedback: the count and rate at the end, and the cumulative count as a curve
// (the x axis of the selective-sampling paper's regret-versus-queries plots).
#include <glimpse/glimpse.hpp>

namespace {

class Queries final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "queries",
            .kind = glimpse::PluginKind::metric,
            .summary = "number of queried rounds (final count and rate; cumulative count as a curve)",
            .reference = "Agarwal, ICML 2013, section 5",
            .params = {glimpse::ParamSpec::integer("record_every", "100", "rounds between curve points (0: no curve)")
                           .at_least(0)}};
  }
  explicit Queries(const glimpse::ParamValues& params) : every_(params.integer("record_every")) {}
  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override {
    count_ = rounds_ = 0;
    curve_ = {"", {}, {}};
    if (every_ > 0) {
      curve_.rounds.reserve(static_cast<std::size_t>(total_rounds / every_ + 2));
      curve_.values.reserve(curve_.rounds.capacity());
    }
  }
  void observe(const glimpse::RoundRecord& r) override {
    count_ += r.queried;
    rounds_ = r.round;
    if (every_ > 0 && r.round % every_ == 0) {
      curve_.rounds.push_back(r.round);
      curve_.values.push_back(static_cast<double>(count_));
    }
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", static_cast<double>(count_)});
    out.scalars.push_back({"rate", rounds_ ? static_cast<double>(count_) / static_cast<double>(rounds_) : 0.0});
    if (every_ <= 0) return;
    auto curve = curve_;
    if (curve.rounds.empty() || curve.rounds.back() != rounds_) {
      curve.rounds.push_back(rounds_);
      curve.values.push_back(static_cast<double>(count_));
    }
    out.curves.push_back(std::move(curve));
  }

 private:
  std::int64_t every_;
  std::int64_t count_ = 0, rounds_ = 0;
  glimpse::MetricResults::Curve curve_;
};

}  // namespace

GLIMPSE_PLUGIN(Queries)
