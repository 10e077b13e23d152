// SCW, soft confidence-weighted learning (Wang, Zhao & Hoi, "Exact soft confidence-weighted learning", ICML 2012,
// variants I and II), multiclass as arow is: a diagonal confidence S_k per class and one constraint against the
// runner-up r, i.e. the binary update applied to the difference x (e_y - e_r), whose margin m = s_y - s_r has
// variance v = x' S_y x + x' S_r x. On m < phi sqrt(v), with psi = 1 + phi^2/2 and xi = 1 + phi^2:
//   I:  alpha = min(C, max(0, (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 xi)) / (v xi)))
//   II: n = v + 1/(2C), alpha = max(0, (-(2 m n + phi^2 m v) + phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2)))
//                                      / (2 (n^2 + n v phi^2)))
//   u = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v))^2 / 4, beta = alpha phi / (sqrt(u) + v alpha phi);
//   w_y += alpha S_y x, w_r -= alpha S_r x, S_k -= beta (S_k x)^2 elementwise for k = y, r. Full feedback.
#include <algorithm>
#include <cmath>
#include <glimpse/algorithms/runner_up_confidence.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class SoftConfidenceWeighted final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "scw",
        .kind = glimpse::PluginKind::learner,
        .summary = "SCW-I/II: soft confidence-weighted multiclass updates against the runner-up, diagonal",
        .reference = "Wang, Zhao & Hoi, ICML 2012 (multiclass single constraint, diagonal, as arow)",
        .params = {glimpse::ParamSpec::real("phi", "1", "confidence phi (the margin must reach phi sqrt(v))")
                       .above(0)
                       .into(&SoftConfidenceWeighted::phi_),
                   glimpse::ParamSpec::real("C", "1", "aggressiveness C").above(0).into(&SoftConfidenceWeighted::c_),
                   glimpse::ParamSpec::choice("variant", "I", {"I", "II"},
                                              "I: alpha capped at C; II: a squared slack weighted 1/(2C)")
                       .into(&SoftConfidenceWeighted::variant_),
                   glimpse::precision_param()},
        .accepts = {glimpse::FeedbackKind::label}};
  }
  SoftConfidenceWeighted() : glimpse::LinearLearner<T>(glimpse::WeightLayout::class_major) {}
  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    const auto constraint = Confidence::against_runner_up(pred, y);
    const double m = constraint.margin, v = confidence_.variance(x, constraint);
    if (v <= 0 || m >= phi_ * std::sqrt(v)) return;
    const double alpha = step_size(m, v);
    if (alpha <= 0) return;
    const double root = -alpha * v * phi_ + std::sqrt(alpha * alpha * v * v * phi_ * phi_ + 4 * v);
    const double u = root * root / 4, beta = alpha * phi_ / (std::sqrt(u) + v * alpha * phi_);
    confidence_.step(model_.weights(), x, constraint, alpha, beta);
  }
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override { confidence_.reset(shape.K, shape.d); }

 private:
  double step_size(double m, double v) const {
    const double phi2 = phi_ * phi_;
    if (variant_ == Variant::I) {
      const double psi = 1 + phi2 / 2, xi = 1 + phi2;
      return std::min(c_, std::max(0.0, (-m * psi + std::sqrt(m * m * phi2 * phi2 / 4 + v * phi2 * xi)) / (v * xi)));
    }
    const double n = v + 1 / (2 * c_);
    const double gamma = phi_ * std::sqrt(phi2 * m * m * v * v + 4 * n * v * (n + v * phi2));
    return std::max(0.0, (-(2 * m * n + phi2 * m * v) + gamma) / (2 * (n * n + n * v * phi2)));
  }

  using Confidence = glimpse::algorithms::RunnerUpConfidence<T>;
  enum class Variant { I, II };  // the choices' order
  using glimpse::LinearLearner<T>::model_;
  double phi_ = 1, c_ = 1;
  Variant variant_ = Variant::I;
  Confidence confidence_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(SoftConfidenceWeighted)
