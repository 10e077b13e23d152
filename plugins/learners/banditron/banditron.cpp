// Banditron (Kakade, Shalev-Shwartz, Tewari, ICML 2008): epsilon-greedy exploration and
// the unbiased Perceptron estimate W += (M / P(proposed) e_proposed - e_greedy) x^T, every round.
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/glimpse.hpp>

namespace {

template <class T>
class Banditron final : public glimpse::algorithms::EpsilonGreedyLinearLearner<T> {
  using Base = glimpse::algorithms::EpsilonGreedyLinearLearner<T>;
  using Base::explore_;
  using Base::model_;

 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "banditron",
        .kind = glimpse::PluginKind::learner,
        .summary = "Banditron: epsilon-greedy proposals, importance-weighted Perceptron update every round",
        .reference = "Kakade, Shalev-Shwartz, Tewari, ICML 2008",
        .params =
            {glimpse::ParamSpec::real("gamma", "0.05", "exploration rate").above(0).at_most(1).into(&Banditron::gamma_),
             glimpse::precision_param()},
        .accepts = {glimpse::FeedbackKind::correctness}};
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer) return;
    if (answer->correct) model_.add_to_row(pred.proposed, static_cast<T>(1.0 / explore_.probability(pred.proposed)), x);
    model_.add_to_row(pred.predicted, T{-1}, x);
  }
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Banditron)
