// AROW, adaptive regularisation of weight vectors (Crammer, Kulesza, Dredze, NIPS 2009), multiclass with a
// diagonal covariance per class (LIBOL's M_AROW.m shares one full covariance among the classes instead; the
// per-class diagonal form is the cheap one, O(nnz) a round): on a margin violation against the runner-up r
// (m = s_y - s_r < 1), with v = x' S_y x + x' S_r x, beta = 1 / (v + r_reg) and alpha = (1 - m) beta:
// w_y += alpha S_y x, w_r -= alpha S_r x, and S_k -= beta (S_k x)^2 elementwise for k = y, r. Full feedback.
#include <glimpse/algorithms/runner_up_confidence.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Arow final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "arow",
        .kind = glimpse::PluginKind::learner,
        .summary = "AROW: second-order multiclass updates against the runner-up, diagonal confidence per class",
        .reference = "Crammer, Kulesza, Dredze, NIPS 2009 (multiclass against the runner-up, diagonal per class)",
        .params =
            {glimpse::ParamSpec::real("r", "1", "regularisation r (beta = 1 / (x' S x + r))").above(0).into(&Arow::r_),
             glimpse::precision_param()},
        .accepts = {glimpse::FeedbackKind::label}};
  }
  Arow() : glimpse::LinearLearner<T>(glimpse::WeightLayout::class_major) {}
  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    const auto constraint = Confidence::against_runner_up(pred, y);
    if (constraint.margin >= 1) return;
    const double beta = 1 / (confidence_.variance(x, constraint) + r_);
    confidence_.step(model_.weights(), x, constraint, (1 - constraint.margin) * beta, beta);
  }
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override { confidence_.reset(shape.K, shape.d); }

 private:
  using Confidence = glimpse::algorithms::RunnerUpConfidence<T>;
  using glimpse::LinearLearner<T>::model_;
  double r_ = 1;
  Confidence confidence_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Arow)
