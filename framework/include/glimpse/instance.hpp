// A view of one data row, dense or sparse, into a dataset's storage: no copy, no ownership.
#pragma once

#include <cstdint>
#include <span>

#include <Eigen/Core>

namespace glimpse {

// Feature values are stored as float32 (compact, fast); learners choose their own accumulation type.
using Feature = float;

struct Instance {
  const Feature* values = nullptr;
  const std::int32_t* indices = nullptr;  // sparse rows: sorted 0-based indices (may be null when nnz == 0)
  std::int32_t nnz = 0;                   // stored values (equals dim for a dense row)
  std::int32_t dim = 0;                   // feature space dimension d
  bool sparse = false;

  bool is_dense() const noexcept { return !sparse; }
  std::span<const Feature> stored_values() const noexcept { return {values, static_cast<std::size_t>(nnz)}; }
  std::span<const std::int32_t> stored_indices() const noexcept {
    return {indices, sparse ? static_cast<std::size_t>(nnz) : 0};
  }
  // Dense rows only.
  Eigen::Map<const Eigen::VectorXf> dense() const noexcept { return {values, dim}; }

  double squared_norm() const noexcept {
    double sum = 0.0;
    for (std::int32_t j = 0; j < nnz; ++j) sum += static_cast<double>(values[j]) * values[j];
    return sum;
  }
};

}  // namespace glimpse
