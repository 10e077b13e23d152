// Confidit (Crammer & Gentile, ICML 2011) as the CSPA paper's experiments ran it:
// per class a second-order matrix A_i (diagonal by default, or full), w_i = A_i^{-1} b_i, upper-confidence
// proposals argmax_i s_i + sqrt(eta x' A_i^{-1} x) on the unit-normalised x, and an update of the proposed
// class only: b += (+-1) x, A += x x'. Options from the original algorithm, reconstructed
// rather than read (off by default): `projection` (each w_i projected in the A_i metric onto |w_i . x| <= alpha before scoring, and
// w_new = A_new^{-1}(A_old w' + rho x)) and `log_factor` (widths^2 times log(t + 1)). With `matrix full`,
// `second_order sketch` keeps each A_i as a frequent-directions sketch instead of the exact inverse (large d).
#include <algorithm>
#include <cmath>
#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Confidit final : public glimpse::Learner {
 public:
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  static glimpse::PluginSpec spec() {
    return {
        .name = "confidit",
        .kind = glimpse::PluginKind::learner,
        .revision = 2,  // 2: full A_i^{-1} in the shared packed second-order state, w_i updated by recursive least squares
        .summary = "Confidit: second-order per-class models, upper-confidence proposals (diagonal or full A)",
        .reference = "Crammer & Gentile, ICML 2011, as in the CSPA paper's experiments",
        .params =
            {glimpse::ParamSpec::real("eta", "1", "exploration width").above(0).into(&Confidit::eta_),
             glimpse::ParamSpec::real("alpha", "1", "A_i starts at (1 + alpha)^2 I").above(0).into(&Confidit::alpha_),
             glimpse::ParamSpec::choice("matrix", "diag", {"diag", "full"},
                                        "diag: O(K nnz) per round; full: O(K d^2) time, O(K d^2) memory")
                 .into(&Confidit::matrix_),
             glimpse::algorithms::second_order_param(&Confidit::second_order_),
             glimpse::algorithms::sketch_rank_param(&Confidit::second_order_),
             glimpse::ParamSpec::boolean("projection", false,
                                         "project each w_i onto |w_i . x| <= alpha (A_i metric) before scoring")
                 .into(&Confidit::projection_),
             glimpse::ParamSpec::boolean("log_factor", false, "multiply the squared widths by log(t + 1)")
                 .into(&Confidit::log_factor_),
             glimpse::precision_param()},
        .accepts = {glimpse::FeedbackKind::correctness}};
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    const T start = static_cast<T>((1 + alpha_) * (1 + alpha_));
    model_.reset(shape.K, shape.d);
    round_ = 0;
    b_.setZero(shape.K, shape.d);
    widths_.setZero(shape.K);
    unit_values_.assign(static_cast<std::size_t>(shape.d), 0.0f);
    if (matrix_ == MatrixForm::full) {
      inverses_.resize(static_cast<std::size_t>(shape.K));
      for (auto& inverse : inverses_)
        inverse.reset(shape.d, static_cast<double>(start), second_order_, "confidit's matrix full");
      dense_x_.setZero(shape.d);
    } else {
      a_.setConstant(shape.K, shape.d, start);
    }
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    ++round_;
    const glimpse::Instance u = unit(x);
    model_.predict_greedy(u, pred);
    if (matrix_ == MatrixForm::full) u.to_dense(dense_x_);
    const T time_factor = log_factor_ ? static_cast<T>(std::log(static_cast<double>(round_) + 1.0)) : T{1};
    for (std::int32_t i = 0; i < model_.num_classes(); ++i) {
      const T quadratic = std::max(inverse_quadratic(i, u), T{0});  // x' A_i^{-1} x, leaves A_i^{-1} x in inverse_x_
      if (projection_) project(i, u, quadratic, pred);
      widths_[i] = std::sqrt(static_cast<T>(eta_) * time_factor * quadratic);
    }
    if (projection_) pred.predicted = glimpse::argmax(pred.scores);  // scores of the projected w_i
    std::int32_t best = 0;
    for (std::int32_t i = 1; i < model_.num_classes(); ++i)
      if (pred.scores[i] + widths_[i] > pred.scores[best] + widths_[best]) best = i;
    pred.proposed = best;
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer) return;
    const glimpse::Instance u = unit(x);
    const std::int32_t k = pred.proposed;
    const T rho = answer->correct ? T{1} : T{-1};
    T* b = b_.row(k).data();
    T* w = model_.weights().row(k).data();
    if (matrix_ == MatrixForm::full) {
      // predict() left p = A_k^{-1} x and r = x' A_k^{-1} x in class k's state (learn follows predict on the same x).
      // A_new^{-1} x = p / (1 + r), so w_new = A_new^{-1}(A_old w' + rho x) = w' + (rho - x . w') p / (1 + r): the
      // recursive least-squares form of w = A^{-1} b (with w' = w when nothing projected it).
      auto& inverse = inverses_[static_cast<std::size_t>(k)];
      const T step = (rho - model_.weights().row(k).dot(dense_x_.transpose())) /
                     static_cast<T>(1.0 + inverse.last_quadratic());
      model_.weights().row(k) += step * inverse.last_product().transpose();
      inverse.add_last(inverse.last_quadratic());
      return;
    }
    T* a = a_.row(k).data();
    for (std::int32_t j = 0; j < u.nnz; ++j) {
      const auto column = u.is_dense() ? j : u.indices[j];
      const T v = static_cast<T>(u.values[j]);
      b[column] += rho * v;
      if (projection_)
        w[column] = (a[column] * w[column] + rho * v) / (a[column] + v * v);  // A_new^{-1}(A_old w' + rho x)
      a[column] += v * v;
      if (!projection_) w[column] = b[column] / a[column];
    }
  }

 private:
  // x' A_i^{-1} x for class i; in full mode A_i^{-1} x is left in class i's state.
  T inverse_quadratic(std::int32_t i, const glimpse::Instance& u) {
    if (matrix_ == MatrixForm::full)
      return static_cast<T>(inverses_[static_cast<std::size_t>(i)].quadratic_dense(dense_x_));
    const T* a = a_.row(i).data();
    T quadratic = 0;
    for (std::int32_t j = 0; j < u.nnz; ++j) {
      const auto column = u.is_dense() ? j : u.indices[j];
      quadratic += static_cast<T>(u.values[j]) * static_cast<T>(u.values[j]) / a[column];
    }
    return quadratic;
  }

  // w_i <- w_i - (s_i - clip(s_i, -alpha, alpha)) / (x' A_i^{-1} x) A_i^{-1} x; the score becomes the clipped one.
  void project(std::int32_t i, const glimpse::Instance& u, T quadratic, glimpse::Prediction& pred) {
    const T score = static_cast<T>(pred.scores[i]);
    const T clipped = std::clamp(score, static_cast<T>(-alpha_), static_cast<T>(alpha_));
    if (score == clipped || quadratic <= 0) return;
    const T factor = (score - clipped) / quadratic;
    T* w = model_.weights().row(i).data();
    if (matrix_ == MatrixForm::full) {
      model_.weights().row(i) -= factor * inverses_[static_cast<std::size_t>(i)].last_product().transpose();
    } else {
      const T* a = a_.row(i).data();
      for (std::int32_t j = 0; j < u.nnz; ++j) {
        const auto column = u.is_dense() ? j : u.indices[j];
        w[column] -= factor * static_cast<T>(u.values[j]) / a[column];
      }
    }
    pred.scores[i] = static_cast<double>(clipped);
  }

  // x / ||x|| in a buffer with x's indices (x itself when its norm is 0).
  glimpse::Instance unit(const glimpse::Instance& x) {
    const double norm = std::sqrt(x.squared_norm());
    if (norm <= 0.0) return x;
    for (std::int32_t j = 0; j < x.nnz; ++j)
      unit_values_[static_cast<std::size_t>(j)] = static_cast<glimpse::Feature>(x.values[j] / norm);
    glimpse::Instance u = x;
    u.values = unit_values_.data();
    return u;
  }

  enum class MatrixForm { diag, full };  // the choices' order
  double eta_ = 1, alpha_ = 1;
  MatrixForm matrix_ = MatrixForm::diag;
  bool projection_ = false, log_factor_ = false;
  std::int64_t round_ = 0;
  glimpse::LinearModel<T> model_;
  Matrix a_, b_;  // diagonal of A_i and b_i, one row per class (diag mode)
  glimpse::algorithms::SecondOrderOptions second_order_;       // full mode: exact or sketched A_i^{-1}
  std::vector<glimpse::algorithms::SecondOrder<T>> inverses_;  // full mode: A_i^{-1}
  Vector widths_, dense_x_;
  std::vector<glimpse::Feature> unit_values_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Confidit)
