// Multiclass Perceptron: full-feedback baseline.
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Perceptron final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "perceptron",
            .kind = glimpse::PluginKind::learner,
            .summary = "multiclass Perceptron: on a mistake, w_y += eta x and w_predicted -= eta x",
            .reference = "multiclass Perceptron (Crammer & Singer, JMLR 2003), the partial-label paper's exact-label baseline",
            .params = {glimpse::ParamSpec::real("eta", "1", "step size").above(0).into(&Perceptron::eta_),
                       glimpse::ParamSpec::real(
                           "margin", "0",
                           "0: update on mistakes only; m > 0: update whenever s_y - max_{r!=y} s_r < m, "
                           "against the runner-up r")
                           .at_least(0)
                           .into(&Perceptron::margin_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label}};
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    std::int32_t rival = pred.predicted;
    if (margin_ > 0) {
      rival = glimpse::argmax_except(model_.scores(), y);
      if (static_cast<double>(model_.scores()[y] - model_.scores()[rival]) >= margin_) return;
    } else if (rival == y) {
      return;
    }
    model_.add_to_row(y, eta_, x);
    model_.add_to_row(rival, -eta_, x);
  }

 private:
  using glimpse::LinearLearner<T>::model_;
  T eta_ = 1;
  double margin_ = 0;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Perceptron)
