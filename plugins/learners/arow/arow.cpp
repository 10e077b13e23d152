// AROW, adaptive regularisation of weight vectors (Crammer, Kulesza, Dredze, NIPS 2009), multiclass with a
// diagonal covariance per class, as SOL/LIBOL run it: on a margin violation against the runner-up r
// (m = s_y - s_r < 1), with v = x' S_y x + x' S_r x, beta = 1 / (v + r_reg) and alpha = (1 - m) beta:
// w_y += alpha S_y x, w_r -= alpha S_r x, and S_k -= beta (S_k x)^2 elementwise for k = y, r. Full feedback.
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Arow final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "arow",
            .kind = glimpse::PluginKind::learner,
            .summary = "AROW: second-order multiclass updates against the runner-up, diagonal confidence per class",
            .reference = "Crammer, Kulesza, Dredze, NIPS 2009 (multiclass, diagonal, as in SOL/LIBOL)",
            .params = {glimpse::ParamSpec::real("r", "1", "regularisation r (beta = 1 / (x' S x + r))").above(0),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label}};
  }
  explicit Arow(const glimpse::ParamValues& params) : r_(params.real("r")) {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    model_.reset(shape.K, shape.d, glimpse::WeightLayout::class_major);
    confidence_.setOnes(shape.K, shape.d);
  }
  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override { model_.predict_greedy(x, pred); }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    const std::int32_t rival = glimpse::argmax_except(pred.scores, y);
    const double margin = pred.scores[static_cast<std::size_t>(y)] - pred.scores[static_cast<std::size_t>(rival)];
    if (margin >= 1) return;
    double variance = 0;
    x.for_each_stored([&](std::int32_t j, double v) {
      variance += v * v * (static_cast<double>(confidence_(y, j)) + static_cast<double>(confidence_(rival, j)));
    });
    const double beta = 1 / (variance + r_), alpha = (1 - margin) * beta;
    auto& w = model_.weights();
    x.for_each_stored([&](std::int32_t j, double v) {
      for (const auto& [k, sign] : {std::pair{y, 1.0}, std::pair{rival, -1.0}}) {
        const double s = static_cast<double>(confidence_(k, j)) * v;
        w(k, j) += static_cast<T>(sign * alpha * s);
        confidence_(k, j) -= static_cast<T>(beta * s * s);
      }
    });
  }

 private:

  double r_;
  glimpse::LinearModel<T> model_;
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> confidence_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Arow)
