// CSPA, complementary support-class passive-aggressive (Kaneko, Sato, Sugiyama 2019, Algorithm 1;
// ALGORITHMS.md 3.1). Deterministic: proposes the greedy label; when told it was right, takes the SPA step
// on it; when told it was wrong, treats it as a complementary label (eq. 19).
#include <glimpse/algorithms/complementary_step.hpp>
#include <glimpse/algorithms/support_class_pa.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Cspa final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cspa",
            .kind = glimpse::PluginKind::learner,
            .summary = "complementary SPA: SPA step when the proposal is right, complementary-label step when wrong",
            .reference = "Kaneko, Sato, Sugiyama, arXiv 2019, Algorithm 1 and eq. (19); ALGORITHMS.md 3.1",
            .params = {glimpse::ParamSpec::real("beta", "1/(2*(K-1))",
                                                "fraction of the wrong-label loss removed per step (Theorem 2 needs "
                                                "beta = (1 - alpha)/(K - 1))")
                           .above(0)
                           .at_most(1),
                       glimpse::ParamSpec::choice("wrong_loss", "margin", {"margin", "unit"},
                                                  "margin: 1 + s_proposed - max of the others (eq. 4); unit: 1, as "
                                                  "Algorithm 1 literally reads"),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
  explicit Cspa(const glimpse::ParamValues& params)
      : beta_(params.real("beta")), unit_loss_(params.text("wrong_loss") == "unit") {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    model_.reset(shape);
    step_.reset(shape.K);
  }
  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override { model_.predict_greedy(x, pred); }
  void prefetch(const glimpse::Instance& upcoming) noexcept override { model_.expect(upcoming); }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer) return;
    if (answer->correct) {
      if (!step_.compute(model_.scores(), pred.proposed, x.squared_norm())) return;
      model_.add_to_rows(step_.tau(), x);
      return;
    }
    const double loss =
        unit_loss_ ? 1.0 : glimpse::algorithms::complementary_margin_loss(model_.scores(), pred.proposed);
    glimpse::algorithms::apply_complementary_step(model_, x, pred.proposed, beta_, loss);
  }

 private:
  double beta_;
  bool unit_loss_;
  glimpse::LinearModel<T> model_;
  glimpse::algorithms::SupportClassPa step_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Cspa)
