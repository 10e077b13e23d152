// Complementary-label PA: CSPA's wrong-label step used alone, for feedback that names one class the
// instance does not have (ALGORITHMS.md section 4). The loss is clipped at 0, since the complementary
// label need not be the argmax here.
#include <glimpse/algorithms/complementary_step.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Cpa final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cpa",
            .kind = glimpse::PluginKind::learner,
            .summary = "learns from complementary labels with CSPA's wrong-label step (loss clipped at 0)",
            .reference = "ALGORITHMS.md section 4; CSPA paper eq. (19); Ishida et al. (NeurIPS 2017) setting",
            .params = {glimpse::ParamSpec::real("beta", "1/(2*(K-1))", "fraction of the loss removed per step")
                           .above(0)
                           .at_most(1),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::complementary}};
  }
  explicit Cpa(const glimpse::ParamValues& params) : beta_(params.real("beta")) {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override { model_.reset(shape); }
  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override { model_.predict_greedy(x, pred); }
  void prefetch(const glimpse::Instance& upcoming) noexcept override { model_.expect(upcoming); }
  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const auto* complementary = std::get_if<glimpse::ComplementaryFeedback>(&feedback);
    if (!complementary) return;
    const double loss = glimpse::algorithms::complementary_margin_loss(model_.scores(), complementary->label);
    glimpse::algorithms::apply_complementary_step(model_, x, complementary->label, beta_, loss);
  }

 private:
  double beta_;
  glimpse::LinearModel<T> model_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Cpa)
