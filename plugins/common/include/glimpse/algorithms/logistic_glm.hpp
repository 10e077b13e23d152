// The multinomial-logit GLM of CS-Selectron (ALGORITHMS.md 7, P1 eq. 9): W minimises
//   F(W) = sum_{s in Q} [log sum_i exp(W x_s)_i - (W x_s)_{y_s}] + gamma ||W||_F^2
// over the labelled set Q, by L-BFGS warm-started at the previous W. With last_row_zero the last class's row
// is fixed at 0 (identifiability) and only the other rows are optimised.
//
// Refit work is bounded two ways: each refit stops at ||grad F||_inf <= tolerance or after max_iterations,
// and with refit_growth g > 0 the model is refitted only when |Q| has grown by the factor 1 + g since the last
// refit (every labelled round while |Q| < 1/g), so the total work over T labelled rounds is
// O(T K d iterations / g) instead of O(T^2 K d iterations). One evaluation of F and its gradient reads each
// labelled x once (fused loop, O(|Q| K d), no allocation).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glimpse/algorithms/lbfgs.hpp>
#include <vector>

namespace glimpse::algorithms {

class LogisticGlm {
 public:
  struct Options {
    double gamma = 1.0;
    bool last_row_zero = true;
    double tolerance = 1e-6;
    std::int32_t max_iterations = 100;
    double refit_growth = 0.0;
    std::int32_t memory = 10;
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
    z_.setZero(k);
    labelled_x_.clear();
    labels_.clear();
    const std::int64_t reserved = std::min<std::int64_t>(expected_labelled, (std::int64_t{32} << 20) / std::max(1, d));
    labelled_x_.reserve(static_cast<std::size_t>(reserved * d));
    labels_.reserve(static_cast<std::size_t>(reserved));
    next_refit_ = 1;
    solver_.reset(weights_.size(), options.memory);
    last_fit_ = {};
    refits_ = 0;
  }

  // p = softmax(W x) for a dense x of size d.
  template <class X, class P>
  void probabilities(const X& x, P& p) const {
    for (std::int32_t i = 0; i < free_rows_; ++i) z_[i] = row(i).dot(x);
    if (free_rows_ < k_) z_[k_ - 1] = 0.0;
    last_log_partition_ = log_sum_exp();
    for (std::int32_t i = 0; i < k_; ++i) p[i] = std::exp(z_[i] - last_log_partition_);
  }
  // The log-loss log sum_i exp(W x)_i - (W x)_y of the x of the last probabilities() call, computed from the
  // scores (exact where p_y underflows).
  double last_loss(std::int32_t y) const noexcept { return last_log_partition_ - z_[y]; }

  // Adds a labelled (x, y) and refits when the schedule says so; returns whether it refitted.
  template <class X>
  bool add(const X& x, std::int32_t y) {
    labelled_x_.insert(labelled_x_.end(), x.data(), x.data() + d_);
    labels_.push_back(y);
    if (labelled() < next_refit_) return false;
    refit();
    return true;
  }

  void refit() {
    last_fit_ = solver_.minimize([this](const Eigen::Ref<const Eigen::VectorXd>& w,
                                        Eigen::Ref<Eigen::VectorXd> gradient) { return objective(w, gradient); },
                                 weights_, options_.tolerance, options_.max_iterations);
    ++refits_;
    const auto n = labelled();
    next_refit_ = std::max<std::int64_t>(
        n + 1, static_cast<std::int64_t>(std::ceil(static_cast<double>(n) * (1.0 + options_.refit_growth))));
  }

  // F(w) over the labelled set and its gradient (w: the free rows, row after row).
  double objective(const Eigen::Ref<const Eigen::VectorXd>& w, Eigen::Ref<Eigen::VectorXd> gradient) const {
    const Eigen::Map<const RowMajor> rows(w.data(), free_rows_, d_);
    Eigen::Map<RowMajor> gradient_rows(gradient.data(), free_rows_, d_);
    gradient_rows = (2.0 * options_.gamma) * rows;
    double value = options_.gamma * w.squaredNorm();
    for (std::int64_t s = 0; s < labelled(); ++s) {
      const Eigen::Map<const Eigen::VectorXd> x(labelled_x_.data() + s * d_, d_);
      z_.head(free_rows_).noalias() = rows * x;
      if (free_rows_ < k_) z_[k_ - 1] = 0.0;
      const double log_partition = log_sum_exp();
      const std::int32_t y = labels_[static_cast<std::size_t>(s)];
      value += log_partition - z_[y];
      for (std::int32_t i = 0; i < free_rows_; ++i) {
        const double residual = std::exp(z_[i] - log_partition) - (i == y ? 1.0 : 0.0);
        gradient_rows.row(i) += residual * x.transpose();
      }
    }
    return value;
  }

  std::int64_t labelled() const noexcept { return static_cast<std::int64_t>(labels_.size()); }
  std::int64_t refits() const noexcept { return refits_; }
  const Lbfgs::Result& last_fit() const noexcept { return last_fit_; }
  // The free rows, row after row (the last row is 0 when last_row_zero).
  const Eigen::VectorXd& weights() const noexcept { return weights_; }

 private:
  Eigen::Map<const Eigen::VectorXd> row(std::int32_t i) const {
    return {weights_.data() + static_cast<Eigen::Index>(i) * d_, d_};
  }
  double log_sum_exp() const {
    const double top = z_.maxCoeff();
    return top + std::log((z_.array() - top).exp().sum());
  }

  Options options_;
  std::int32_t k_ = 0, d_ = 0, free_rows_ = 0;
  Eigen::VectorXd weights_;
  mutable Eigen::VectorXd z_;  // scratch: one instance's class scores
  mutable double last_log_partition_ = 0.0;
  std::vector<double> labelled_x_;  // |Q| x d, row-major
  std::vector<std::int32_t> labels_;
  std::int64_t next_refit_ = 1, refits_ = 0;
  Lbfgs solver_;
  Lbfgs::Result last_fit_;
};

}  // namespace glimpse::algorithms
