// The class-normalised confusion matrix of the COPA paper: Gamma[p][q] = share of
// class-p examples labelled q (p != q), Gamma[p][p] = 0, and its operator (spectral) norm, the largest
// singular value. Shared by the confusion and operator_norm metrics; allocation-free after reset().
#pragma once

#include <glimpse/algorithms/symmetric_eigen.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace glimpse::algorithms {

class ConfusionCounts {
 public:
  void reset(std::int32_t num_classes) {
    k_ = num_classes;
    counts_.assign(static_cast<std::size_t>(k_) * static_cast<std::size_t>(k_), 0);
    totals_.assign(static_cast<std::size_t>(k_), 0);
    gamma_.setZero(k_, k_);
    gram_.setZero(k_, k_);
    // Sizes the solver once, so later compute() calls do not allocate. (Not by assigning a sized solver: Eigen's
    // SelfAdjointEigenSolver(size) leaves its status uninitialised and the assignment copies it, which UBSan
    // reports.)
    solver_.compute(gram_, Eigen::EigenvaluesOnly);
  }
  void clear() {
    std::fill(counts_.begin(), counts_.end(), 0);
    std::fill(totals_.begin(), totals_.end(), 0);
  }
  void add(std::int32_t truth, std::int32_t predicted) {
    ++counts_[static_cast<std::size_t>(truth) * static_cast<std::size_t>(k_) + static_cast<std::size_t>(predicted)];
    ++totals_[static_cast<std::size_t>(truth)];
  }

  // ||Gamma||_op; classes without examples yet have a zero row. Uses preallocated scratch space.
  double operator_norm() const {
    for (std::int32_t p = 0; p < k_; ++p)
      for (std::int32_t q = 0; q < k_; ++q) gamma_(p, q) = p == q ? 0.0 : rate(p, q);
    gram_.noalias() = gamma_.transpose() * gamma_;
    solver_.compute(gram_, Eigen::EigenvaluesOnly);
    return std::sqrt(std::max(0.0, solver_.eigenvalues().maxCoeff()));
  }
  // Mean over the classes seen of the share of their examples labelled wrongly (1 - recall).
  double balanced_error() const {
    double sum = 0.0;
    std::int32_t seen = 0;
    for (std::int32_t p = 0; p < k_; ++p) {
      if (totals_[static_cast<std::size_t>(p)] == 0) continue;
      sum += 1.0 - rate(p, p);
      ++seen;
    }
    return seen ? sum / seen : std::numeric_limits<double>::quiet_NaN();
  }
  // The full row-normalised matrix (its diagonal is the per-class recall), row-major K x K.
  void rates(std::vector<double>& out) const {
    out.resize(counts_.size());
    for (std::int32_t p = 0; p < k_; ++p)
      for (std::int32_t q = 0; q < k_; ++q) out[static_cast<std::size_t>(p * k_ + q)] = rate(p, q);
  }
  double rate(std::int32_t p, std::int32_t q) const {
    const auto total = totals_[static_cast<std::size_t>(p)];
    return total ? static_cast<double>(counts_[static_cast<std::size_t>(p * k_ + q)]) / static_cast<double>(total)
                 : 0.0;
  }
  std::int64_t total() const {
    std::int64_t sum = 0;
    for (auto t : totals_) sum += t;
    return sum;
  }
  std::int32_t num_classes() const noexcept { return k_; }

 private:
  std::int32_t k_ = 0;
  std::vector<std::int64_t> counts_, totals_;
  // Scratch space of operator_norm(), sized in reset().
  mutable Eigen::MatrixXd gamma_, gram_;
  mutable SymmetricEigen solver_;
};

}  // namespace glimpse::algorithms
