// The partial (ambiguous) 0-1 loss: the share of rounds whose prediction lies outside the candidate set the
// oracle gave (rounds without a candidate set are not counted; NaN when no round had one, e.g. a baseline on
// exact labels, so a table shows "-" rather than a perfect score).
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <limits>

namespace {

class CandidateError final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "candidate_error",
            .kind = glimpse::PluginKind::metric,
            .summary = "share of rounds whose prediction is outside the round's candidate label set",
            .reference = "Cour et al. (JMLR 2011) partial 0-1 loss",
            .better = glimpse::Better::lower};
  }
  explicit CandidateError(const glimpse::ParamValues&) {}
  void reset(const glimpse::ProblemShape&, std::int64_t) override { outside_ = counted_ = 0; }
  void observe(const glimpse::RoundRecord& r) override {
    const auto* set = std::get_if<glimpse::CandidateSetFeedback>(r.feedback);
    if (!set) return;
    ++counted_;
    outside_ += std::find(set->labels.begin(), set->labels.end(), r.prediction->predicted) == set->labels.end();
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", counted_ ? static_cast<double>(outside_) / static_cast<double>(counted_)
                                        : std::numeric_limits<double>::quiet_NaN()});
  }

 private:
  std::int64_t outside_ = 0, counted_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(CandidateError)
