// The multinomial-logit GLM of CS-Selectron (P1 eq. 9): W minimises
//   F(W) = sum_{s in Q} [log sum_i exp(W x_s)_i - (W x_s)_{y_s}] + gamma ||W||_F^2
// over the labelled set Q. With last_row_zero the last class's row is fixed at 0 (identifiability) and only
// the other rows are optimised.
//
// Solvers:
//   lbfgs (the paper's rule): an exact refit, ||grad F||_inf <= tolerance, by L-BFGS warm-started at the
//     previous W with the previous refits' curvature pairs. F and its gradient at the current W are kept up
//     to date as samples arrive (the new sample's term is O(K d)), so a refit starts without a pass over Q and
//     is skipped when that gradient is already within the tolerance; after one new sample it first solves
//     that sample's own subspace exactly (newest_sample_step: 2-4 passes per refit instead of about 25 while
//     |Q| < d); a pass over Q is two matrix products (scores X W', gradient R' X). docs/performance.md.
//   ons: the Online Newton Step P1 (remark b) names as the cheap alternative, with a Kronecker-factored
//     curvature (ours; [U]): per labelled sample W <- W - A^{-1} r (M^{-1} x)', r = softmax(W x) - e_y over the
//     free rows, A the mean of diag(p_s) - p_s p_s' at the times of adding, M = X'X + 2 gamma K I including x
//     (kept by Sherman-Morrison): O(d^2 + K d) per sample, no pass over Q, not the exact minimiser.
// With refit_growth g > 0 (lbfgs) the model is refitted only when |Q| has grown by the factor 1 + g.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glimpse/algorithms/second_order_state.hpp>
#include <vector>

#include "lbfgs.hpp"

namespace glimpse::algorithms {

class LogisticGlm {
 public:
  enum class Solver { lbfgs, ons };
  struct Options {
    double gamma = 1.0;
    bool last_row_zero = true;
    double tolerance = 1e-6;
    std::int32_t max_iterations = 100;
    double refit_growth = 0.0;
    std::int32_t memory = 10;
    Solver solver = Solver::lbfgs;
  };
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // `expected_labelled`: room for this many labelled rows is reserved (up to 256 MB), so a pass over the data
  // does not reallocate.
  void reset(std::int32_t k, std::int32_t d, const Options& options, std::int64_t expected_labelled = 0) {
    options_ = options;
    k_ = k;
    d_ = d;
    free_rows_ = options.last_row_zero ? k - 1 : k;
    weights_.setZero(static_cast<Eigen::Index>(free_rows_) * d);
    gradient_.setZero(weights_.size());
    value_ = 0.0;
    z_.setZero(k);
    residual_.setZero(k);
    const std::int64_t reserved = std::max<std::int64_t>(
        16, std::min<std::int64_t>(expected_labelled, (std::int64_t{32} << 20) / std::max(1, d)));
    labelled_x_.resize(reserved, d);
    scores_.resize(reserved, k);
    const Eigen::Index subspace = static_cast<Eigen::Index>(free_rows_) * kDirections;
    overlap_.resize(reserved, kDirections);
    directions_.setZero(d, kDirections);
    direction_gram_.setZero(kDirections, kDirections);
    newest_scores_.setZero(free_rows_, kDirections);
    curvature_.setZero(free_rows_, free_rows_);
    delta_.setZero(subspace);
    subspace_trial_.setZero(subspace);
    subspace_direction_.setZero(subspace);
    subspace_gradient_.setZero(subspace);
    subspace_hessian_.setZero(subspace, subspace);
    subspace_cholesky_ = Eigen::LLT<Eigen::MatrixXd>(subspace);
    labels_.clear();
    labels_.reserve(static_cast<std::size_t>(reserved));
    curvature_sum_.setZero(free_rows_, free_rows_);
    curvature_inverse_.setZero(free_rows_, free_rows_);
    if (options.solver == Solver::ons)
      gram_.reset(d, 2.0 * options.gamma * k, "the Online Newton Step's curvature (solver ons)");
    next_refit_ = 1;
    refitted_at_ = 0;
    solver_.reset(weights_.size(), options.memory);
    last_fit_ = {};
    refits_ = passes_ = 0;
  }

  // p = softmax(W x) for a dense x of size d.
  template <class X, class P>
  void probabilities(const X& x, P& p) const {
    scores(x);
    for (std::int32_t i = 0; i < k_; ++i) p[i] = std::exp(z_[i] - last_log_partition_);
  }
  // The log-loss log sum_i exp(W x)_i - (W x)_y of the x of the last probabilities() call, computed from the
  // scores (exact where p_y underflows).
  double last_loss(std::int32_t y) const noexcept { return last_log_partition_ - z_[y]; }

  // Adds a labelled (x, y): F and its gradient at the current W take the new term, the curvature takes the
  // sample, and the solver updates W (lbfgs: a refit when the schedule says so). Returns whether W was refitted.
  template <class X>
  bool add(const X& x, std::int32_t y) {
    append(x, y);
    scores(x);
    value_ += last_log_partition_ - z_[y];
    for (std::int32_t i = 0; i < k_; ++i) residual_[i] = std::exp(z_[i] - last_log_partition_) - (i == y ? 1.0 : 0.0);
    Eigen::Map<RowMajor> gradient_rows(gradient_.data(), free_rows_, d_);
    gradient_rows.noalias() += residual_.head(free_rows_) * x.transpose();
    if (options_.solver == Solver::ons) {
      // diag(p) - p p' over the free rows, p = residual + e_y
      for (std::int32_t i = 0; i < free_rows_; ++i) {
        const double p_i = residual_[i] + (i == y ? 1.0 : 0.0);
        curvature_sum_(i, i) += p_i;
        for (std::int32_t j = 0; j < free_rows_; ++j)
          curvature_sum_(i, j) -= p_i * (residual_[j] + (j == y ? 1.0 : 0.0));
      }
      gram_.add_last(gram_.quadratic_dense(x));
      online_newton_step();
      return true;
    }
    if (labelled() < next_refit_) return false;
    refit();
    return true;
  }

  void refit() {
    if (options_.solver == Solver::ons) return;
    // The newest sample's subspace holds most of the move when it is the only sample since the last refit.
    if (labelled() == refitted_at_ + 1 && gradient_.lpNorm<Eigen::Infinity>() > options_.tolerance) {
      newest_sample_step();
      value_ = objective(weights_, gradient_);
    }
    last_fit_ = solver_.minimize([this](const Eigen::Ref<const Eigen::VectorXd>& w,
                                        Eigen::Ref<Eigen::VectorXd> gradient) { return objective(w, gradient); },
                                 weights_, value_, gradient_, options_.tolerance, options_.max_iterations);
    ++refits_;
    const auto n = labelled();
    refitted_at_ = n;
    next_refit_ = std::max<std::int64_t>(
        n + 1, static_cast<std::int64_t>(std::ceil(static_cast<double>(n) * (1.0 + options_.refit_growth))));
  }

  // F(w) over the labelled set and its gradient (w: the free rows, row after row): one pass over Q as two
  // matrix products.
  double objective(const Eigen::Ref<const Eigen::VectorXd>& w, Eigen::Ref<Eigen::VectorXd> gradient) const {
    ++passes_;
    const Eigen::Map<const RowMajor> rows(w.data(), free_rows_, d_);
    Eigen::Map<RowMajor> gradient_rows(gradient.data(), free_rows_, d_);
    const Eigen::Index n = labelled();
    auto x = labelled_x_.topRows(n);
    auto z = scores_.topRows(n);
    z.leftCols(free_rows_).noalias() = x * rows.transpose();
    double value = options_.gamma * w.squaredNorm();
    for (Eigen::Index s = 0; s < n; ++s) {
      auto row = z.row(s);
      if (free_rows_ < k_) row[k_ - 1] = 0.0;
      const double top = row.maxCoeff();
      const double log_partition = top + std::log((row.array() - top).exp().sum());
      const std::int32_t y = labels_[static_cast<std::size_t>(s)];
      value += log_partition - row[y];
      row = (row.array() - log_partition).exp();  // the residual softmax - e_y
      row[y] -= 1.0;
    }
    gradient_rows.noalias() = (2.0 * options_.gamma) * rows;
    gradient_rows.noalias() += z.leftCols(free_rows_).transpose() * x;
    return value;
  }

  std::int64_t labelled() const noexcept { return static_cast<std::int64_t>(labels_.size()); }
  std::int64_t refits() const noexcept { return refits_; }
  // Evaluations of F over the whole labelled set so far (each one pass over Q).
  std::int64_t passes() const noexcept { return passes_; }
  const Lbfgs::Result& last_fit() const noexcept { return last_fit_; }
  // The free rows, row after row (the last row is 0 when last_row_zero).
  const Eigen::VectorXd& weights() const noexcept { return weights_; }

 private:
  template <class X>
  void scores(const X& x) const {
    const Eigen::Map<const RowMajor> rows(weights_.data(), free_rows_, d_);
    z_.head(free_rows_).noalias() = rows * x;
    if (free_rows_ < k_) z_[k_ - 1] = 0.0;
    const double top = z_.maxCoeff();
    last_log_partition_ = top + std::log((z_.array() - top).exp().sum());
  }

  // The refit's first move, in the subspace of the newest sample x_n: W + D x_n' with D (the free rows)
  // minimising F exactly by damped Newton. While |Q| < d, x_n is mostly new directions and most of the refit's
  // movement is along it. Scores move by D u_s with u_s = x_s . x_n, so after one product for the scores and
  // one for u each Newton iteration costs O(|Q| K^2), not a pass over the data. L-BFGS then finishes the rest.
  // (A second direction, M^{-1} x_n with M = X'X + c I, did not lower the passes once |Q| > d: measured.)
  void newest_sample_step() {
    const Eigen::Index n = labelled();
    const auto x = labelled_x_.topRows(n);
    Eigen::Map<RowMajor> rows(weights_.data(), free_rows_, d_);
    directions_.col(0) = labelled_x_.row(n - 1).transpose();
    auto z = scores_.topRows(n);
    z.leftCols(free_rows_).noalias() = x * rows.transpose();
    if (free_rows_ < k_) z.col(k_ - 1).setZero();
    overlap_.topRows(n).noalias() = x * directions_;
    direction_gram_.noalias() = directions_.transpose() * directions_;
    newest_scores_.noalias() = rows * directions_;
    delta_.setZero();
    double value = subspace_objective(delta_, true);
    for (int iteration = 0; iteration < 50; ++iteration) {
      if (subspace_gradient_.lpNorm<Eigen::Infinity>() <= 0.1 * options_.tolerance) break;
      subspace_cholesky_.compute(subspace_hessian_);
      if (subspace_cholesky_.info() != Eigen::Success) break;
      subspace_direction_ = -subspace_gradient_;
      subspace_cholesky_.solveInPlace(subspace_direction_);
      const double slope = subspace_gradient_.dot(subspace_direction_);
      if (!(slope < 0.0)) break;
      double step = 1.0, trial_value = 0.0;
      bool decreased = false;
      for (int halvings = 0; halvings < 40; ++halvings, step *= 0.5) {
        subspace_trial_ = delta_ + step * subspace_direction_;
        trial_value = subspace_objective(subspace_trial_, false);
        if (trial_value <= value + 1e-4 * step * slope) {
          decreased = true;
          break;
        }
      }
      if (!decreased) break;
      delta_ = subspace_trial_;
      value = subspace_objective(delta_, true);
    }
    const Eigen::Map<const Eigen::MatrixXd> d(delta_.data(), free_rows_, kDirections);
    rows.noalias() += d * directions_.transpose();
  }

  // F(W + D V') less F's terms that do not depend on D (D = delta, column after column), from the scores at W
  // and u; with `derivatives`, also its gradient and Hessian in delta.
  double subspace_objective(const Eigen::VectorXd& delta, bool derivatives) {
    const Eigen::Index n = labelled();
    const Eigen::Map<const Eigen::MatrixXd> d(delta.data(), free_rows_, kDirections);
    // gamma (2 tr(D' W V) + tr(D V'V D'))
    double value = options_.gamma *
                   (2.0 * (d.array() * newest_scores_.array()).sum() + (d * direction_gram_).cwiseProduct(d).sum());
    if (derivatives) {
      Eigen::Map<Eigen::MatrixXd> g(subspace_gradient_.data(), free_rows_, kDirections);
      g = (2.0 * options_.gamma) * (newest_scores_ + d * direction_gram_);
      subspace_hessian_.setZero();
      for (Eigen::Index a = 0; a < kDirections; ++a)
        for (Eigen::Index b = 0; b < kDirections; ++b)
          subspace_hessian_.block(a * free_rows_, b * free_rows_, free_rows_, free_rows_).diagonal().array() +=
              2.0 * options_.gamma * direction_gram_(a, b);
    }
    for (Eigen::Index s = 0; s < n; ++s) {
      const auto u = overlap_.row(s);
      z_ = scores_.row(s).transpose();
      z_.head(free_rows_).noalias() += d * u.transpose();
      const double top = z_.maxCoeff();
      const double log_partition = top + std::log((z_.array() - top).exp().sum());
      const std::int32_t y = labels_[static_cast<std::size_t>(s)];
      value += log_partition - z_[y];
      if (!derivatives) continue;
      residual_ = (z_.array() - log_partition).exp();  // p
      curvature_ = -residual_.head(free_rows_) * residual_.head(free_rows_).transpose();
      curvature_.diagonal() += residual_.head(free_rows_);
      if (y < free_rows_) residual_[y] -= 1.0;
      for (Eigen::Index a = 0; a < kDirections; ++a) {
        subspace_gradient_.segment(a * free_rows_, free_rows_) += u[a] * residual_.head(free_rows_);
        for (Eigen::Index b = 0; b < kDirections; ++b)
          subspace_hessian_.block(a * free_rows_, b * free_rows_, free_rows_, free_rows_) += (u[a] * u[b]) * curvature_;
      }
    }
    return value;
  }

  template <class X>
  void append(const X& x, std::int32_t y) {
    const Eigen::Index n = labelled();
    if (n == labelled_x_.rows()) {  // past the reserved room: grow geometrically
      labelled_x_.conservativeResize(2 * n, Eigen::NoChange);
      scores_.conservativeResize(2 * n, Eigen::NoChange);
      overlap_.conservativeResize(2 * n, Eigen::NoChange);
    }
    labelled_x_.row(n) = x.transpose();
    labels_.push_back(y);
  }

  // ons: (A + ridge I)^{-1}, A the mean of diag(p_s) - p_s p_s' over Q (the ridge keeps it invertible when all K
  // rows are free, where A has the null vector 1).
  void factor_curvature() {
    const double n = static_cast<double>(std::max<std::int64_t>(1, labelled()));
    scratch_square_ = curvature_sum_ / n;
    scratch_square_.diagonal().array() += 1e-3 / k_;
    cholesky_.compute(scratch_square_);
    curvature_inverse_.setIdentity();
    cholesky_.solveInPlace(curvature_inverse_);
  }

  // W <- W - A^{-1} r (M^{-1} x)', M^{-1} x = the pre-update M^{-1} x / (1 + r_x) after Sherman-Morrison.
  void online_newton_step() {
    factor_curvature();
    Eigen::Map<RowMajor> rows(weights_.data(), free_rows_, d_);
    const double shrink = 1.0 / (1.0 + gram_.last_quadratic());
    rows.noalias() -= (shrink * (curvature_inverse_ * residual_.head(free_rows_))) * gram_.last_product().transpose();
  }

  Options options_;
  std::int32_t k_ = 0, d_ = 0, free_rows_ = 0;
  Eigen::VectorXd weights_;
  Eigen::VectorXd gradient_;   // grad F at weights_ over the labelled set (kept current as samples arrive)
  double value_ = 0.0;         // F at weights_
  mutable Eigen::VectorXd z_;  // scratch: one instance's class scores
  Eigen::VectorXd residual_;
  mutable double last_log_partition_ = 0.0;
  RowMajor labelled_x_;      // |Q| x d in the first rows
  mutable RowMajor scores_;  // scratch: |Q| x K scores, then residuals
  std::vector<std::int32_t> labels_;
  // newest_sample_step: V = [x_n], V'V, u_s = V' x_s (rows), W V, and the Newton iterate over D
  static constexpr Eigen::Index kDirections = 1;
  Eigen::Matrix<double, Eigen::Dynamic, kDirections> directions_;
  Eigen::Matrix<double, Eigen::Dynamic, kDirections> overlap_;
  Eigen::Matrix<double, kDirections, kDirections> direction_gram_;
  Eigen::Matrix<double, Eigen::Dynamic, kDirections> newest_scores_;
  Eigen::VectorXd delta_, subspace_trial_, subspace_direction_, subspace_gradient_;
  Eigen::MatrixXd subspace_hessian_, curvature_;
  Eigen::LLT<Eigen::MatrixXd> subspace_cholesky_;
  Eigen::MatrixXd curvature_sum_, curvature_inverse_, scratch_square_;
  Eigen::LLT<Eigen::MatrixXd> cholesky_;
  SecondOrderState<double> gram_;  // ons: (X'X + 2 gamma K I)^{-1}
  std::int64_t next_refit_ = 1, refits_ = 0, refitted_at_ = 0;
  mutable std::int64_t passes_ = 0;
  Lbfgs solver_;
  Lbfgs::Result last_fit_;
};

}  // namespace glimpse::algorithms
