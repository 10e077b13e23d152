// SOBA, the Second Order Banditron (Beygelzimer, Orabona, Zhang, ICML 2017), as the public codes run it
// (bahh723/separable-bandit-classification soba_diag_multi_train.m, the full-matrix
// soba_multi_train.m): epsilon-greedy proposals around the greedy label; on a right proposal y~ = y, with
// ybar the runner-up, g = (e_ybar - e_y) x^T / p(y) and z = sqrt(p(y)) g; the round counts (A += z z^T,
// theta -= g, W = A^{-1} theta) when the cumulative normalised margin M + m stays >= 0, where
// m = ((W . z)^2 + 2 W . g) / (1 + z^T A^{-1} z). Wrong proposals change nothing. The paper's body could not be
// read here: the update follows the codes, the paper's eta-loss family and adaptive exploration are not built.
#include <cmath>
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/glimpse.hpp>

namespace {

template <class T>
class Soba final : public glimpse::algorithms::EpsilonGreedyLinearLearner<T>, public glimpse::RunReporter {
  using Base = glimpse::algorithms::EpsilonGreedyLinearLearner<T>;
  using Base::explore_;
  using Base::model_;
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

 public:
  static glimpse::PluginSpec spec() {
    return {.name = "soba",
            .kind = glimpse::PluginKind::learner,
            .revision = 3,  // 2: full A^{-1} in the shared packed second-order state, W by recursive least squares;
                            // 3: second_order sketch: a sketch_rank >= d keeps the exact inverse, default rank 20
            .summary = "SOBA: second-order Banditron, margin-tested updates on right proposals (diagonal or full A)",
            .reference = "Beygelzimer, Orabona, Zhang, ICML 2017, as in the public MATLAB codes",
            .params = {glimpse::ParamSpec::real("gamma", "0.01", "exploration rate (gamma)")
                           .above(0)
                           .at_most(1)
                           .into(&Soba::gamma_),
                       glimpse::ParamSpec::real("a", "1", "A starts at a I").above(0).into(&Soba::a_),
                       glimpse::ParamSpec::choice("matrix", "diag", {"diag", "full"},
                                                  "diag: O(K nnz) per update; full: the Kd x Kd matrix, O((Kd)^2)")
                           .into(&Soba::matrix_),
                       glimpse::algorithms::second_order_param(&Soba::second_order_),
                       glimpse::algorithms::sketch_rank_param(&Soba::second_order_), glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
  Soba() : Base(glimpse::WeightLayout::class_major) {}
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t seed) override {
    Base::reset_state(shape, seed);
    d_ = shape.d;
    margin_ = 0;
    theta_.setZero(shape.K, shape.d);
    if (matrix_ == MatrixForm::full) {
      const std::int64_t n = static_cast<std::int64_t>(shape.K) * shape.d;
      inverse_.reset(n, a_, second_order_, "soba's matrix full (a Kd x Kd matrix)");
      z_.setZero(n);
    } else {
      diagonal_.setConstant(shape.K, shape.d, static_cast<T>(a_));
    }
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer || !answer->correct) return;
    const std::int32_t y = pred.proposed;
    const std::int32_t runner_up = glimpse::argmax_except(pred.scores, y);
    const double p = explore_.probability(y);
    if (matrix_ == MatrixForm::full)
      learn_full(x, y, runner_up, p);
    else
      learn_diagonal(x, y, runner_up, p);
  }

  // The cumulative margin M at the end of the run (never negative: an update happens only when it stays >= 0).
  void report(glimpse::MetricResults& out) const override { out.scalars.push_back({"cumulative_margin", margin_}); }

 private:
  // g has +x/p in row ybar and -x/p in row y, so W . g = (s_ybar - s_y)/p and W . z = sqrt(p) W . g.
  double margin_term(double w_dot_g, double p, double z_inverse_z) const {
    const double w_dot_z = std::sqrt(p) * w_dot_g;
    return (w_dot_z * w_dot_z + 2 * w_dot_g) / (1 + z_inverse_z);
  }

  void learn_diagonal(const glimpse::Instance& x, std::int32_t y, std::int32_t runner_up, double p) {
    auto& w = model_.weights();
    double w_dot_g = 0, z_inverse_z = 0;
    x.for_each_stored([&](std::int32_t j, double v) {
      w_dot_g += (w(runner_up, j) - w(y, j)) * v / p;
      z_inverse_z +=
          v * v / p * (1 / static_cast<double>(diagonal_(runner_up, j)) + 1 / static_cast<double>(diagonal_(y, j)));
    });
    const double m = margin_term(w_dot_g, p, z_inverse_z);
    if (margin_ + m < 0) return;
    margin_ += m;
    x.for_each_stored([&](std::int32_t j, double v) {
      const T z_squared = static_cast<T>(v * v / p);
      const T g = static_cast<T>(v / p);
      for (const auto& [k, sign] : {std::pair{runner_up, T{1}}, std::pair{y, T{-1}}}) {
        diagonal_(k, j) += z_squared;
        theta_(k, j) -= sign * g;
        w(k, j) = theta_(k, j) / diagonal_(k, j);
      }
    });
  }

  void learn_full(const glimpse::Instance& x, std::int32_t y, std::int32_t runner_up, double p) {
    z_.setZero();
    const T scale = static_cast<T>(1 / std::sqrt(p));  // z = sqrt(p) g = (e_ybar - e_y) x^T / sqrt(p)
    x.for_each_stored([&](std::int32_t j, double v) {
      z_[static_cast<std::int64_t>(runner_up) * d_ + j] = scale * static_cast<T>(v);
      z_[static_cast<std::int64_t>(y) * d_ + j] = -scale * static_cast<T>(v);
    });
    const double z_inverse_z = inverse_.quadratic_dense(z_);  // leaves q = A^{-1} z in last_product()
    const double w_dot_z = static_cast<double>(model_.all_weights().dot(z_));
    const double m = margin_term(w_dot_z / std::sqrt(p), p, z_inverse_z);
    if (margin_ + m < 0) return;
    margin_ += m;
    // A += z z^T and theta -= z / sqrt(p); W = A^{-1} theta then moves by recursive least squares:
    // W_new = W - q (1 / sqrt(p) + z . W) / (1 + z^T A^{-1} z), q = A^{-1} z (Sherman-Morrison applied to W).
    const T step = static_cast<T>((1 / std::sqrt(p) + w_dot_z) / (1 + z_inverse_z));
    model_.all_weights() -= step * inverse_.last_product();
    inverse_.add_last(z_inverse_z);
  }

  enum class MatrixForm { diag, full };  // the choices' order
  double a_ = 1;
  MatrixForm matrix_ = MatrixForm::diag;
  std::int32_t d_ = 0;
  double margin_ = 0;
  Matrix theta_, diagonal_;                      // diag mode
  glimpse::algorithms::SecondOrder<T> inverse_;  // full mode: A^{-1}, exact or sketched
  glimpse::algorithms::SecondOrderOptions second_order_;
  Vector z_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Soba)
