// Confidit (Crammer & Gentile, ICML 2011) as the CSPA paper's experiments ran it (ALGORITHMS.md 3.4):
// per class a second-order matrix A_i (diagonal by default, or full), w_i = A_i^{-1} b_i, upper-confidence
// proposals argmax_i s_i + sqrt(eta x' A_i^{-1} x) on the unit-normalised x, and an update of the proposed
// class only: b += (+-1) x, A += x x'. The original's projection step and log t factor are not implemented.
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

template <class T>
class Confidit final : public glimpse::Learner {
 public:
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  static glimpse::PluginSpec spec() {
    return {.name = "confidit",
            .kind = glimpse::PluginKind::learner,
            .summary = "Confidit: second-order per-class models, upper-confidence proposals (diagonal or full A)",
            .reference = "Crammer & Gentile, ICML 2011, as in the CSPA paper's experiments; ALGORITHMS.md 3.4",
            .params = {glimpse::ParamSpec::real("eta", "1", "exploration width").above(0),
                       glimpse::ParamSpec::real("alpha", "1", "A_i starts at (1 + alpha)^2 I").above(0),
                       glimpse::ParamSpec::choice("matrix", "diag", {"diag", "full"},
                                                  "diag: O(K nnz) per round; full: O(K d^2) time, O(K d^2) memory"),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
  explicit Confidit(const glimpse::ParamValues& params)
      : eta_(params.real("eta")), alpha_(params.real("alpha")), full_(params.text("matrix") == "full") {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    const T start = static_cast<T>((1 + alpha_) * (1 + alpha_));
    model_.reset(shape.K, shape.d);
    b_.setZero(shape.K, shape.d);
    widths_.setZero(shape.K);
    unit_values_.assign(static_cast<std::size_t>(shape.d), 0.0f);
    if (full_) {
      inverses_.assign(static_cast<std::size_t>(shape.K), Matrix::Identity(shape.d, shape.d) / start);
      dense_x_.setZero(shape.d);
      inverse_x_.setZero(shape.d);
    } else {
      a_.setConstant(shape.K, shape.d, start);
    }
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    const glimpse::Instance u = unit(x);
    model_.predict_greedy(u, pred);
    if (full_) densify(u);
    for (std::int32_t i = 0; i < model_.num_classes(); ++i) {
      T quadratic = 0;
      if (full_) {
        inverse_x_.noalias() = inverses_[static_cast<std::size_t>(i)] * dense_x_;
        quadratic = dense_x_.dot(inverse_x_);
      } else {
        const T* a = a_.row(i).data();
        for (std::int32_t j = 0; j < u.nnz; ++j) {
          const auto column = u.is_dense() ? j : u.indices[j];
          quadratic += static_cast<T>(u.values[j]) * static_cast<T>(u.values[j]) / a[column];
        }
      }
      widths_[i] = std::sqrt(static_cast<T>(eta_) * std::max(quadratic, T{0}));
    }
    std::int32_t best = 0;
    for (std::int32_t i = 1; i < model_.num_classes(); ++i)
      if (model_.scores()[i] + widths_[i] > model_.scores()[best] + widths_[best]) best = i;
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
    if (full_) {
      densify(u);
      b_.row(k) += rho * dense_x_.transpose();
      Matrix& inverse = inverses_[static_cast<std::size_t>(k)];
      // Sherman-Morrison: (A + x x')^{-1} = A^{-1} - (A^{-1} x)(A^{-1} x)' / (1 + x' A^{-1} x).
      inverse_x_.noalias() = inverse * dense_x_;
      const T denominator = 1 + dense_x_.dot(inverse_x_);
      inverse.noalias() -= (inverse_x_ * inverse_x_.transpose()) / denominator;
      model_.weights().row(k).noalias() = (inverse * b_.row(k).transpose()).transpose();
      return;
    }
    T* a = a_.row(k).data();
    for (std::int32_t j = 0; j < u.nnz; ++j) {
      const auto column = u.is_dense() ? j : u.indices[j];
      const T v = static_cast<T>(u.values[j]);
      b[column] += rho * v;
      a[column] += v * v;
      w[column] = b[column] / a[column];
    }
  }

 private:
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
  void densify(const glimpse::Instance& u) {
    if (u.is_dense()) {
      for (std::int32_t j = 0; j < u.dim; ++j) dense_x_[j] = static_cast<T>(u.values[j]);
      return;
    }
    dense_x_.setZero();
    for (std::int32_t j = 0; j < u.nnz; ++j) dense_x_[u.indices[j]] = static_cast<T>(u.values[j]);
  }

  double eta_, alpha_;
  bool full_;
  glimpse::LinearModel<T> model_;
  Matrix a_, b_;                  // diagonal of A_i (diag mode) and b_i, one row per class
  std::vector<Matrix> inverses_;  // full mode: A_i^{-1}
  Vector widths_, dense_x_, inverse_x_;
  std::vector<glimpse::Feature> unit_values_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Confidit)
