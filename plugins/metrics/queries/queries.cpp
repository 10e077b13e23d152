// How many rounds asked for feedback: the count and rate at the end, and the cumulative count as a curve
// (the x axis of the selective-sampling paper's regret-versus-queries plots).
#include <glimpse/algorithms/sampled_curve.hpp>
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
                           .at_least(0)
                           .into(&Queries::record_every_)}};
  }
  void configure() { curve_ = glimpse::algorithms::SampledCurve("", record_every_, record_every_); }
  void reset(const glimpse::ProblemShape&, std::int64_t total_rounds) override {
    count_ = rounds_ = 0;
    curve_.reset(total_rounds);
  }
  void observe(const glimpse::RoundRecord& r) override {
    count_ += r.queried;
    rounds_ = r.round;
    if (curve_.due(r.round)) curve_.record(r.round, static_cast<double>(count_));
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", static_cast<double>(count_)});
    out.scalars.push_back({"rate", rounds_ ? static_cast<double>(count_) / static_cast<double>(rounds_) : 0.0});
    curve_.report(out, rounds_, static_cast<double>(count_));
  }

 private:
  std::int64_t count_ = 0, rounds_ = 0;
  std::int64_t record_every_ = 100;
  glimpse::algorithms::SampledCurve curve_{"", 0, 0};
};

}  // namespace

GLIMPSE_PLUGIN(Queries)
