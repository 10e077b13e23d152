// One-against-all online least squares, as Vowpal Wabbit's `--oaa K` runs it with its defaults: one linear
// regressor per class, trained each round toward +1 for the true class and -1 for every other, with VW's default
// step (adaptive, normalised, importance-invariant: algorithms/normalized_step.hpp), classes in order 1..K;
// the prediction is the class of the highest clipped score (the first on ties). Full feedback; a complementary
// label (a class the instance does not have, e.g. the explorer's wrong proposal) steps that class alone toward -1.
#include <glimpse/algorithms/normalized_step.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class OneAgainstAll final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "oaa",
            .kind = glimpse::PluginKind::learner,
            .revision = 2,  // 2: the normalised step sums a dense row in 16 partial sums
            .summary = "one-against-all least squares with Vowpal Wabbit's normalised adaptive invariant step",
            .reference = "Vowpal Wabbit --oaa (gd.cc); Ross, Mineiro & Langford, UAI 2013",
            .params =
                {glimpse::ParamSpec::real("eta", "0.5", "learning rate (VW's -l)").above(0).into(&OneAgainstAll::eta_),
                 glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label, glimpse::FeedbackKind::complementary}};
  }
  OneAgainstAll() : glimpse::LinearLearner<T>(glimpse::WeightLayout::class_major) {}
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override { step_.reset(shape.K, shape.d); }
  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    model_.compute_scores(x);
    const auto& raw = model_.scores();
    for (Eigen::Index k = 0; k < raw.size(); ++k)
      pred.scores[static_cast<std::size_t>(k)] = step_.clip(static_cast<double>(raw[k]));
    pred.predicted = pred.proposed = glimpse::argmax(pred.scores);
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    if (const auto* wrong = std::get_if<glimpse::ComplementaryFeedback>(&feedback)) {
      step_.step(model_.weights(), wrong->label, x, static_cast<double>(model_.row_dot(wrong->label, x)), -1.0, eta_);
      return;
    }
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    for (std::int32_t k = 0; k < model_.num_classes(); ++k)
      step_.step(model_.weights(), k, x, static_cast<double>(model_.row_dot(k, x)), k == y ? 1.0 : -1.0, eta_);
  }

 private:
  using glimpse::LinearLearner<T>::model_;
  double eta_ = 0.5;
  glimpse::algorithms::NormalizedLeastSquares<T> step_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(OneAgainstAll)
