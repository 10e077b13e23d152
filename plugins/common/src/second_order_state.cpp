// SketchedSecondOrderState's members (glimpse/algorithms/second_order_state.hpp says what the sketch keeps), compiled
// once here so that Eigen's eigensolver and Cholesky are not compiled again in every plugin that keeps the state.
#include <glimpse/algorithms/second_order_state.hpp>

namespace glimpse::algorithms {

void SketchedSecondOrderState::reset(std::int64_t dim, double initial_scale, std::int32_t rank) {
  if (rank < 1) throw Error("a sketched second-order state needs rank >= 1, not " + std::to_string(rank));
  dim_ = dim;
  rank_ = rank;
  const std::int64_t rows = 2 * static_cast<std::int64_t>(rank);
  alpha_ = initial_scale;
  shrunk_ = 0;
  rows_used_ = 0;
  sketch_.setZero(rows, dim);
  rotated_.setZero(rows, dim);
  gram_.setZero(rows, rows);
  system_.setZero(rows, rows);
  projected_.setZero(rows);
  dense_.setZero(dim);
  product_.setZero(dim);
  quadratic_ = 0;
  added_ = 0;
  eigen_.compute(gram_);  // sizes the solvers' storage here, not at the first rotation (allocation-free after)
  factor();
}

double SketchedSecondOrderState::quadratic(const Instance& x) {
  x.to_dense(dense_);
  return apply();
}

void SketchedSecondOrderState::add_last(double) {
  if (rows_used_ == sketch_.rows()) compact();
  sketch_.row(rows_used_) = dense_.transpose();
  projected_.noalias() = sketch_ * dense_;  // B x, with the new row's x'x last
  gram_.col(rows_used_) = projected_;
  gram_.row(rows_used_) = projected_.transpose();
  ++rows_used_;
  ++added_;
  factor();
}

SketchedSecondOrderState::Matrix SketchedSecondOrderState::matrix() const {
  return alpha_ * Matrix::Identity(dim_, dim_) + sketch_.transpose() * sketch_;
}

double SketchedSecondOrderState::apply() {
  projected_.noalias() = sketch_ * dense_;
  factor_.solveInPlace(projected_);
  product_.noalias() = sketch_.transpose() * projected_;
  product_ = (dense_ - product_) / alpha_;
  quadratic_ = dense_.dot(product_);
  return quadratic_;
}

void SketchedSecondOrderState::compact() {
  eigen_.compute(gram_);  // ascending eigenvalues
  const auto& values = eigen_.eigenvalues();
  const std::int64_t rows = sketch_.rows();
  const double delta = std::max(values[rows - rank_], 0.0);
  rotated_.noalias() = eigen_.eigenvectors().transpose() * sketch_;
  sketch_.setZero();
  for (std::int64_t r = 0; r + 1 < rank_; ++r) {
    const double value = values[rows - 1 - r];
    if (value > delta) sketch_.row(r) = std::sqrt((value - delta) / value) * rotated_.row(rows - 1 - r);
  }
  rows_used_ = rank_ - 1;
  shrunk_ += delta;
  alpha_ += delta / 2;
  gram_.noalias() = sketch_ * sketch_.transpose();
}

void SketchedSecondOrderState::factor() {
  system_ = gram_;
  system_.diagonal().array() += alpha_;
  factor_.compute(system_);
}

}  // namespace glimpse::algorithms
