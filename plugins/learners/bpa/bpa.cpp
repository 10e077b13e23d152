// BPA, bandit passive-aggressive (Zhong & Dauce, ECML 2015), as the CSPA authors' baseline code runs it
//: Banditron's exploration, then a binary one-vs-rest PA step on the proposed row only,
// pushing its score to +1 when right and -1 when wrong. The original paper's text could not be checked.
#include <algorithm>
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/glimpse.hpp>

namespace {

template <class T>
class Bpa final : public glimpse::algorithms::EpsilonGreedyLinearLearner<T> {
  using Base = glimpse::algorithms::EpsilonGreedyLinearLearner<T>;
  using Base::explore_;
  using Base::model_;

 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "bpa",
        .kind = glimpse::PluginKind::learner,
        .summary = "bandit PA: epsilon-greedy proposals, binary PA step on the proposed class's row",
        .reference = "Zhong & Dauce, ECML 2015, as in the CSPA authors' code",
        .params = {glimpse::ParamSpec::real("gamma", "0.05", "exploration rate").above(0).at_most(1).into(&Bpa::gamma_),
                   glimpse::ParamSpec::real("margin_correct", "1",
                                            "target margin when right: 1 (CSPA authors' code) or 0 (first "
                                            "author's MATLAB code)")
                       .at_least(0)
                       .at_most(1)
                       .into(&Bpa::margin_correct_),
                   glimpse::precision_param()},
        .accepts = {glimpse::FeedbackKind::correctness}};
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    const double squared_norm = x.squared_norm();
    if (!answer || squared_norm <= 0.0) return;
    const double z = static_cast<double>(model_.scores()[pred.proposed]);
    // Right: want z >= margin_correct; wrong: want z <= -1.
    const double loss = answer->correct ? std::max(0.0, margin_correct_ - z) : std::max(0.0, 1.0 + z);
    if (loss > 0.0)
      model_.add_to_row(pred.proposed, static_cast<T>((answer->correct ? 1.0 : -1.0) * loss / squared_norm), x);
  }

 private:
  double margin_correct_ = 1;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Bpa)
