// Complementary-label feedback: one label drawn uniformly among the K - 1 the instance does not have
// (the setting of Ishida et al., NeurIPS 2017).
#include <glimpse/glimpse.hpp>

namespace {

class ComplementaryOracle final : public glimpse::FeedbackOracle {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "complementary",
            .kind = glimpse::PluginKind::oracle,
            .summary = "returns a label drawn uniformly among the wrong ones",
            .reference = "Ishida et al., NeurIPS 2017",
            .produces = glimpse::FeedbackKind::complementary};
  }
  explicit ComplementaryOracle(const glimpse::ParamValues&) {}
  void reset(const glimpse::ProblemShape& shape) override { k_ = shape.K; }
  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction&,
                            glimpse::Rng& rng) override {
    auto label = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(k_ - 1)));
    if (label >= truth.label) ++label;  // skip the true label
    return glimpse::ComplementaryFeedback{label};
  }

 private:
  std::int32_t k_ = 2;
};

}  // namespace

GLIMPSE_PLUGIN(ComplementaryOracle)
