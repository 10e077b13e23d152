// Full feedback: the true label, every round.
#include <glimpse/glimpse.hpp>

namespace {

class FullOracle final : public glimpse::FeedbackOracle {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "full",
            .kind = glimpse::PluginKind::oracle,
            .summary = "returns the true label (full-information online learning)",
            .produces = glimpse::FeedbackKind::label};
  }
  explicit FullOracle(const glimpse::ParamValues&) {}
  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction&,
                            glimpse::Rng&) override {
    return glimpse::LabelFeedback{truth.label};
  }
};

}  // namespace

GLIMPSE_PLUGIN(FullOracle)
