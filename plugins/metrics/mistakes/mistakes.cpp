// Mistake counts: of the greedy prediction (the quantity mistake bounds speak of) and of the proposal.
#include <glimpse/glimpse.hpp>

namespace {

class Mistakes final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "mistakes",
            .kind = glimpse::PluginKind::metric,
            .summary =
                "number of rounds whose predicted label was wrong (NAME) and whose proposed label was wrong "
                "(NAME_proposed)",
            .better = glimpse::Better::lower};
  }
  explicit Mistakes(const glimpse::ParamValues&) {}
  void reset(const glimpse::ProblemShape&, std::int64_t) override { predicted_ = proposed_ = 0; }
  void observe(const glimpse::RoundRecord& r) override {
    predicted_ += r.prediction->predicted != r.truth->label;
    proposed_ += r.prediction->proposed != r.truth->label;
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", static_cast<double>(predicted_)});
    out.scalars.push_back({"proposed", static_cast<double>(proposed_)});
  }

 private:
  std::int64_t predicted_ = 0, proposed_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(Mistakes)
