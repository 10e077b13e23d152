// Bandit (partial) feedback: only whether the proposed label was the true one.
#include <glimpse/glimpse.hpp>

namespace {

class BanditOracle final : public glimpse::FeedbackOracle {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "bandit",
            .kind = glimpse::PluginKind::oracle,
            .summary = "returns only whether the learner's proposed label is the true label",
            .reference = "CSPA paper (Kaneko et al. 2019), section 2",
            .produces = glimpse::FeedbackKind::correctness};
  }
  explicit BanditOracle(const glimpse::ParamValues&) {}
  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction& pred,
                            glimpse::Rng&) override {
    return glimpse::CorrectnessFeedback{pred.proposed == truth.label};
  }
};

}  // namespace

GLIMPSE_PLUGIN(BanditOracle)
