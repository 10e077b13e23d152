// Multiclass Perceptron (ALGORITHMS.md section 2): full-feedback baseline.
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Perceptron final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "perceptron",
            .kind = glimpse::PluginKind::learner,
            .summary = "multiclass Perceptron: on a mistake, w_y += eta x and w_predicted -= eta x",
            .reference = "ALGORITHMS.md section 2 (exact-label baseline of the partial-label paper)",
            .params = {glimpse::ParamSpec::real("eta", "1", "step size").above(0),
                       glimpse::ParamSpec::real(
                           "margin", "0",
                           "0: update on mistakes only; m > 0: update whenever s_y - max_{r!=y} s_r < m, "
                           "against the runner-up r")
                           .at_least(0),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label}};
  }

  explicit Perceptron(const glimpse::ParamValues& params)
      : eta_(static_cast<T>(params.real("eta"))), margin_(params.real("margin")) {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override { model_.reset(shape); }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override { model_.predict_greedy(x, pred); }
  void prefetch(const glimpse::Instance& upcoming) noexcept override { model_.expect(upcoming); }

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
  T eta_;
  double margin_;
  glimpse::LinearModel<T> model_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Perceptron)
