// CSPA, complementary support-class passive-aggressive (Kaneko, Sato, Sugiyama 2019, Algorithm 1; README.md
// here). Deterministic: proposes the greedy label; when told it was right, takes the SPA step
// on it; when told it was wrong, treats it as a complementary label (eq. 19).
#include <glimpse/algorithms/complementary_step.hpp>
#include <glimpse/algorithms/support_class_pa.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Cspa final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cspa",
            .kind = glimpse::PluginKind::learner,
            .summary = "complementary SPA: SPA step when the proposal is right, complementary-label step when wrong",
            .reference = "Kaneko, Sato, Sugiyama, arXiv 2019, Algorithm 1 and eq. (19)",
            .params = {glimpse::ParamSpec::real("beta", "1/(2*(K-1))",
                                                "fraction of the wrong-label loss removed per step (Theorem 2 needs "
                                                "beta = (1 - alpha)/(K - 1))")
                           .above(0)
                           .at_most(1)
                           .into(&Cspa::beta_),
                       glimpse::ParamSpec::choice("wrong_loss", "margin", {"margin", "unit"},
                                                  "margin: 1 + s_proposed - max of the others (eq. 4); unit: 1, as "
                                                  "Algorithm 1 literally reads")
                           .into(&Cspa::wrong_loss_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer) return;
    if (answer->correct) {
      if (!step_.compute(model_.scores(), pred.proposed, x.squared_norm())) return;
      model_.add_to_rows(step_.tau(), x);
      return;
    }
    const double loss = wrong_loss_ == WrongLoss::unit
                            ? 1.0
                            : glimpse::algorithms::complementary_margin_loss(model_.scores(), pred.proposed);
    glimpse::algorithms::apply_complementary_step(model_, x, pred.proposed, beta_, loss);
  }
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override { step_.reset(shape.K); }

 private:
  enum class WrongLoss { margin, unit };  // the choices' order
  using glimpse::LinearLearner<T>::model_;
  double beta_ = 1;
  WrongLoss wrong_loss_ = WrongLoss::margin;
  glimpse::algorithms::SupportClassPa step_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Cspa)
