// Selective sampling's labeller: the true label on the rounds the query rule asks for. The round loop never
// consults an oracle on unqueried rounds (the learner gets no feedback there), so this differs from `full`
// only in name and intent: a protocol reads as the paper's setting, and reports name the oracle so.
#include <glimpse/glimpse.hpp>

namespace {

class LabelOnQueryOracle final : public glimpse::FeedbackOracle {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "label_on_query",
            .kind = glimpse::PluginKind::oracle,
            .summary = "the true label on queried rounds, nothing otherwise (pair with a query_rule)",
            .reference = "selective-sampling paper (Agarwal, ICML 2013) section 2",
            .produces = glimpse::FeedbackKind::label};
  }
  explicit LabelOnQueryOracle(const glimpse::ParamValues&) {}
  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction&,
                            glimpse::Rng&) override {
    return glimpse::LabelFeedback{truth.label};
  }
};

}  // namespace

GLIMPSE_PLUGIN(LabelOnQueryOracle)
