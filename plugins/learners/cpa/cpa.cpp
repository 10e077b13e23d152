// Complementary-label PA: CSPA's wrong-label step used alone, for feedback that names one class the
// instance does not have. The loss is clipped at 0, since the complementary
// label need not be the argmax here.
#include <glimpse/algorithms/complementary_step.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Cpa final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cpa",
            .kind = glimpse::PluginKind::learner,
            .summary = "learns from complementary labels with CSPA's wrong-label step (loss clipped at 0)",
            .reference = "CSPA paper (Kaneko et al. 2019) eq. (19), used alone; Ishida et al. (NeurIPS 2017) setting",
            .params = {glimpse::ParamSpec::real("beta", "1/(2*(K-1))", "fraction of the loss removed per step")
                           .above(0)
                           .at_most(1)
                           .into(&Cpa::beta_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::complementary}};
  }
  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const auto* complementary = std::get_if<glimpse::ComplementaryFeedback>(&feedback);
    if (!complementary) return;
    const double loss = glimpse::algorithms::complementary_margin_loss(model_.scores(), complementary->label);
    glimpse::algorithms::apply_complementary_step(model_, x, complementary->label, beta_, loss);
  }

 private:
  using glimpse::LinearLearner<T>::model_;
  double beta_ = 1;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Cpa)
