// A view of one data row, dense or sparse, into a dataset's storage: no copy, no ownership.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>

namespace glimpse {

// Feature values are stored as float32 (compact, fast); learners choose their own accumulation type.
using Feature = float;

// Asks the CPU to start loading the cache lines of the `bytes` bytes at `begin`, one line per 64 bytes.
// Inline assembly on x86-64, not __builtin_prefetch: GCC 12 takes a helper that only prefetches for a pure
// function and deletes the calls to it (-fipa-pure-const), which silently dropped LinearModel's in-loop requests.
inline void prefetch_bytes(const void* begin, std::ptrdiff_t bytes) noexcept {
  const char* p = static_cast<const char*>(begin);
  for (std::ptrdiff_t b = 0; b < bytes; b += 64) {
#if defined(__x86_64__)
    __asm__ __volatile__("prefetcht0 %0" : : "m"(p[b]));
#else
    __builtin_prefetch(p + b);
#endif
  }
}

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

  // Asks the CPU to start loading the row (and its indices): the round loop calls it one round ahead,
  // since shuffled rows come from anywhere in a dataset much larger than the caches.
  void prefetch() const noexcept {
    prefetch_bytes(values, static_cast<std::ptrdiff_t>(sizeof(Feature)) * nnz);
    if (sparse) prefetch_bytes(indices, static_cast<std::ptrdiff_t>(sizeof(std::int32_t)) * nnz);
  }

  // Calls visit(j, x_j) for every stored feature j (all d of a dense row, the nnz of a sparse one), in index order.
  template <class Visit>
  void for_each_stored(Visit&& visit) const {
    if (sparse)
      for (std::int32_t e = 0; e < nnz; ++e) visit(indices[e], values[e]);
    else
      for (std::int32_t j = 0; j < dim; ++j) visit(j, values[j]);
  }

  // Writes the row into a dense vector of size dim (zeros where a sparse row stores nothing), e.g. for
  // algorithms that keep d x d matrices.
  template <class Vector>
  void to_dense(Vector& out) const noexcept {
    using Scalar = typename Vector::Scalar;
    if (!sparse) {
      for (std::int32_t j = 0; j < dim; ++j) out[j] = static_cast<Scalar>(values[j]);
      return;
    }
    out.setZero();
    for (std::int32_t e = 0; e < nnz; ++e) out[indices[e]] = static_cast<Scalar>(values[e]);
  }

  // ||x||^2 in double. Sixteen running sums, not one: a single sum is a chain of nnz dependent additions
  // (~3 cycles each), which cost a dense d=784 PA round a third of its time. The order is fixed, so the result
  // is the same on every run and machine (each float product is exact in double, so FMA changes nothing).
  double squared_norm() const noexcept {
    constexpr std::int32_t lanes = 16;
    double partial[lanes] = {};
    std::int32_t j = 0;
    for (; j + lanes <= nnz; j += lanes)
      for (std::int32_t lane = 0; lane < lanes; ++lane)
        partial[lane] += static_cast<double>(values[j + lane]) * values[j + lane];
    for (std::int32_t lane = 0; j < nnz; ++j, ++lane) partial[lane] += static_cast<double>(values[j]) * values[j];
    for (std::int32_t width = lanes / 2; width > 0; width /= 2)
      for (std::int32_t lane = 0; lane < width; ++lane) partial[lane] += partial[lane + width];
    return partial[0];
  }
};

}  // namespace glimpse
