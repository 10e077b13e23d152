// The second-order state that learners and query rules share: M^{-1} for M = m0 I + sum of the added x x^T
// (Confidit's and SOBA's A^{-1}, SquareCB's ridge Gram inverse, the BBQ/DGS query rules' and CS-Selectron's
// M^{-1}), kept by Sherman-Morrison in O(d^2) per added x, never an O(d^3) inverse.
//
// Why it is laid out this way: the state is d x d while a round touches it only to form M^{-1} x, so a learner runs
// at the memory's speed. The matrix is stored packed (the lower triangle, row by row: half the bytes of a dense
// one), and an added x is not applied at once: its downdate M^{-1} -= p p' / (1 + r) (p = M^{-1} x) is kept
// pending and applied by the next product, row by row in the same sweep that reads the row for it. Each round
// therefore reads and writes the matrix once, where the dense form read it twice and wrote it once.
// Allocation-free after reset(). T = float halves the bytes again; double is the default of the query rules.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <glimpse/algorithms/symmetric_eigen.hpp>
#include <glimpse/glimpse.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace glimpse::algorithms {

// 32-byte vectors (GCC and Clang vector extensions): one AVX register, or two SSE ones.
typedef float FloatLanes __attribute__((vector_size(32)));
typedef double DoubleLanes __attribute__((vector_size(32)));

template <class T>
class SecondOrderState {
  using Lanes = std::conditional_t<std::is_same_v<T, float>, FloatLanes, DoubleLanes>;
  static constexpr std::int64_t kWidth = sizeof(Lanes) / sizeof(T);

 public:
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

  // M = initial_scale I. The packed matrix must fit: refuse dimensions whose matrix would exceed `max_bytes`.
  void reset(std::int64_t dim, double initial_scale, const char* owner = "the query rule", double max_bytes = 4.0e9) {
    const double bytes = static_cast<double>(sizeof(T)) * static_cast<double>(dim) * static_cast<double>(dim + 1) / 2;
    if (bytes > max_bytes)
      throw Error(std::string(owner) + " keeps a d x d matrix; d = " + std::to_string(dim) + " needs " +
                  std::to_string(static_cast<long long>(bytes / 1e6)) + " MB (reduce d, e.g. with a projection)");
    dim_ = dim;
    row_starts_.assign(static_cast<std::size_t>(dim + 1), 0);
    for (std::int64_t i = 0; i < dim; ++i)
      row_starts_[static_cast<std::size_t>(i + 1)] = row_starts_[static_cast<std::size_t>(i)] + row_length(i);
    packed_.setZero(row_starts_.back());
    const T diagonal = static_cast<T>(1.0 / initial_scale);
    for (std::int64_t i = 0; i < dim; ++i) packed_[row_start(i) + i] = diagonal;
    const std::int64_t padded = row_length(dim - 1 < 0 ? 0 : dim - 1);
    x_.setZero(padded);
    y_.setZero(padded);
    pending_.setZero(padded);
    dense_.setZero(dim);
    product_.setZero(dim);
    pending_factor_ = 0;
    has_pending_ = false;
    quadratic_ = 0;
    added_ = 0;
  }

  // r = x' M^{-1} x; leaves M^{-1} x in last_product() for a following add_last().
  double quadratic(const Instance& x) {
    x.to_dense(dense_);
    return sweep();
  }
  template <class X>
  double quadratic_dense(const X& x) {
    dense_ = x.template cast<T>();
    return sweep();
  }

  // M <- M + x x' for the x of the last quadratic() call, with r its result: M^{-1} <- M^{-1} - p p' / (1 + r).
  // Applied by the next quadratic() (or inverse()); last_product() and last_quadratic() keep the pre-update values.
  void add_last(double r) {
    pending_.head(dim_) = product_;
    pending_factor_ = static_cast<T>(1.0 / (1.0 + r));
    has_pending_ = true;
    ++added_;
  }

  // M^{-1} x and x' M^{-1} x for the x of the last quadratic() call (before its add_last()).
  const Vector& last_product() const noexcept { return product_; }
  double last_quadratic() const noexcept { return quadratic_; }
  std::int64_t added() const noexcept { return added_; }
  std::int64_t dim() const noexcept { return dim_; }

  // The full symmetric inverse, with any pending update applied (for tests; allocates).
  Matrix inverse() const {
    Matrix full(dim_, dim_);
    for (std::int64_t i = 0; i < dim_; ++i)
      for (std::int64_t j = 0; j <= i; ++j) {
        T value = packed_[row_start(i) + j];
        if (has_pending_) value -= pending_factor_ * pending_[i] * pending_[j];
        full(i, j) = full(j, i) = value;
      }
    return full;
  }

 private:
  // Row i keeps columns 0..i rounded up to whole vectors; the columns past i hold the symmetric entries S_ij
  // (kept current by the same downdate, zero past d) so that no row ends in a partial vector.
  static std::int64_t row_length(std::int64_t i) noexcept { return (i + kWidth) / kWidth * kWidth; }
  std::int64_t row_start(std::int64_t i) const noexcept { return row_starts_[static_cast<std::size_t>(i)]; }

  // One pass over the rows: apply the pending downdate to row i, then add the row's share of M^{-1} x: its own
  // entry sum_j<=i S_ij x_j and, by symmetry, S_ij x_i to the entries j < i.
  double sweep() {
    x_.head(dim_) = dense_;
    y_.setZero();
    const T* x = x_.data();
    const T* p = pending_.data();
    T* y = y_.data();
    for (std::int64_t i = 0; i < dim_; ++i) {
      T* row = packed_.data() + row_start(i);
      const T scale = has_pending_ ? pending_factor_ * p[i] : T{0};  // a zero scale leaves the row as it is
      y[i] +=
          x[i] != T{0} ? sweep_row<true>(row, i, scale, x[i], p, x, y) : sweep_row<false>(row, i, scale, x[i], p, x, y);
    }
    has_pending_ = false;
    product_ = y_.head(dim_);
    quadratic_ = static_cast<double>(dense_.dot(product_));
    return quadratic_;
  }

  // Row i in one loop over whole 32-byte vectors (GCC and Clang vector extensions): S_ij -= scale p_j for every
  // stored column; returns sum_{j<=i} S_ij x_j and adds S_ij x_i to y_j for j < i (the last vector's lanes are
  // masked to those columns). Two partial sums added in a fixed order: the result depends only on the build.
  template <bool kSpreads>
  static T sweep_row(T* __restrict row, std::int64_t i, T scale, T x_i, const T* __restrict p, const T* __restrict x,
                     T* __restrict y) {
    // Vectors move through memcpy and references only: no vector is passed or returned by value, so a build
    // without AVX (two SSE halves per vector) has no ABI to disagree on.
    const std::int64_t last = i / kWidth * kWidth;  // the vector holding the diagonal
    Lanes sum0 = {}, sum1 = {}, a, b, c;
    std::int64_t j = 0;
    for (; j + 2 * kWidth <= last; j += 2 * kWidth) {
      step<kSpreads>(row + j, scale, x_i, p + j, x + j, y + j, sum0, a, b, c);
      step<kSpreads>(row + j + kWidth, scale, x_i, p + j + kWidth, x + j + kWidth, y + j + kWidth, sum1, a, b, c);
    }
    if (j < last) step<kSpreads>(row + j, scale, x_i, p + j, x + j, y + j, sum0, a, b, c);
    // The diagonal's vector: lanes up to the diagonal count in the sum, lanes before it spread.
    std::memcpy(&a, row + last, sizeof a);
    std::memcpy(&b, p + last, sizeof b);
    a -= scale * b;
    std::memcpy(row + last, &a, sizeof a);
    std::memcpy(&b, x + last, sizeof b);
    sum1 += (a * masks()[static_cast<std::size_t>(i - last + 1)]) * b;
    if constexpr (kSpreads) {
      std::memcpy(&c, y + last, sizeof c);
      c += x_i * (a * masks()[static_cast<std::size_t>(i - last)]);
      std::memcpy(y + last, &c, sizeof c);
    }
    const Lanes lanes = sum0 + sum1;
    T sum = 0;
    for (std::int64_t k = 0; k < kWidth; ++k) sum += lanes[k];
    return sum;
  }

  // One whole vector of a row: s = S - scale p, stored; sum += s x; y += x_i s. a, b, c: the caller's scratch.
  template <bool kSpreads>
  static void step(T* row, T scale, T x_i, const T* p, const T* x, T* y, Lanes& sum, Lanes& a, Lanes& b, Lanes& c) {
    std::memcpy(&a, row, sizeof a);
    std::memcpy(&b, p, sizeof b);
    a -= scale * b;
    std::memcpy(row, &a, sizeof a);
    std::memcpy(&b, x, sizeof b);
    sum += a * b;
    if constexpr (kSpreads) {
      std::memcpy(&c, y, sizeof c);
      c += x_i * a;
      std::memcpy(y, &c, sizeof c);
    }
  }

  // masks()[c]: 1 in lanes 0..c-1, 0 in the others.
  static const std::array<Lanes, kWidth + 1>& masks() {
    static const std::array<Lanes, kWidth + 1> table = [] {
      std::array<Lanes, kWidth + 1> t{};
      for (std::int64_t c = 0; c <= kWidth; ++c)
        for (std::int64_t k = 0; k < kWidth; ++k) t[static_cast<std::size_t>(c)][k] = k < c ? T{1} : T{0};
      return t;
    }();
    return table;
  }

  std::int64_t dim_ = 0;
  std::vector<std::int64_t> row_starts_;
  Vector packed_;           // M^{-1} before the pending update, row i at row_starts_[i]
  Vector x_, y_, pending_;  // x, M^{-1} x and the pending p, zero-padded to whole vectors
  Vector dense_, product_;
  T pending_factor_ = 0;
  bool has_pending_ = false;
  double quadratic_ = 0.0;
  std::int64_t added_ = 0;
};

// The sketched form, for large d: M ~ alpha I + B'B with B at most 2m rows (m = `rank`), kept by frequent directions
// (Liberty 2013; Ghashami et al. 2016) with the robust variant's ridge (Luo, Chen, Zhang & Zhang, JMLR 2019): an
// added x becomes a row of B; when the 2m rows are full, B is rotated onto its principal directions, every squared
// singular value is lowered by the m-th largest (delta), the m - 1 largest rows are kept and alpha grows by
// delta / 2. Until 2m rows have been added nothing is lowered and the form is exact. With Delta the sum of the
// deltas, sum x x' - B'B lies between 0 and Delta I, so the sketched M is within Delta / 2 of the exact one in
// spectral norm. M^{-1} x = (x - B'(alpha I + BB')^{-1} B x) / alpha (Woodbury): O(m d) a round, O(m^2 d) every m
// rounds for the rotation, 2m d numbers of state. Same calls as SecondOrderState; double throughout (the state is
// small); allocation-free after reset(). Its members are compiled once, in plugins/common/src (the library
// glimpse_plugin_common_compiled): defined here, Eigen's eigensolver and Cholesky were compiled again in every file
// that includes this header, 17-20 s of each such file's compile with GCC (docs/performance.md).
class SketchedSecondOrderState {
 public:
  using Vector = Eigen::VectorXd;
  using Matrix = Eigen::MatrixXd;

  void reset(std::int64_t dim, double initial_scale, std::int32_t rank);
  double quadratic(const Instance& x);
  template <class X>
  double quadratic_dense(const X& x) {
    dense_ = x.template cast<double>();
    return apply();
  }
  // Adds the x of the last quadratic() call to the sketch (r unused: kept for the exact form's signature).
  void add_last(double);

  const Vector& last_product() const noexcept { return product_; }
  double last_quadratic() const noexcept { return quadratic_; }
  std::int64_t added() const noexcept { return added_; }
  std::int64_t dim() const noexcept { return dim_; }
  // alpha (the initial scale plus half of every delta) and Delta (the sum of the deltas).
  double ridge() const noexcept { return alpha_; }
  double shrunk() const noexcept { return shrunk_; }
  // The sketched M itself, alpha I + B'B (for tests; allocates).
  Matrix matrix() const;

 private:
  double apply();
  // B's 2m rows onto their principal directions (the eigenvectors of BB'), lowered by the m-th largest squared
  // singular value; the m - 1 largest are kept, in the first rows.
  void compact();
  void factor();

  std::int64_t dim_ = 0;
  std::int32_t rank_ = 1;
  double alpha_ = 1, shrunk_ = 0;
  std::int64_t rows_used_ = 0;
  Matrix sketch_, rotated_, gram_, system_;  // B (unused rows 0), scratch, BB', alpha I + BB'
  Eigen::LLT<Matrix> factor_;
  SymmetricEigen eigen_;
  Vector projected_, dense_, product_;
  double quadratic_ = 0;
  std::int64_t added_ = 0;
};

// Which form a learner or query rule keeps: its `second_order` and `sketch_rank` parameters.
struct SecondOrderOptions {
  enum class Form { exact, sketch } form = Form::exact;  // the choices' order
  // 20: within a point of the exact state's accuracy on fashion-MNIST (d = 784), where 10 was not
  // (docs/performance.md, "Accuracy of the sketch").
  std::int64_t rank = 20;
};
inline const char* second_order_doc() {
  return "exact: the d x d inverse, O(d^2) a round; sketch: the starting diagonal plus B'B, B at most 2 sketch_rank "
         "rows (frequent directions), O(sketch_rank d) a round, for large d (sketch_rank >= d keeps the exact inverse)";
}
// The two parameters, for plugins that read them by name (the query rules), and bound to a SecondOrderOptions field.
inline ParamSpec second_order_param() {
  return ParamSpec::choice("second_order", "exact", {"exact", "sketch"}, second_order_doc());
}
inline ParamSpec sketch_rank_param() {
  return ParamSpec::integer("sketch_rank", std::to_string(SecondOrderOptions{}.rank),
                            "m, the rank of the sketch (second_order sketch only)")
      .at_least(1);
}
template <class C>
ParamSpec second_order_param(SecondOrderOptions C::*options) {
  return second_order_param().into(options, &SecondOrderOptions::form);
}
template <class C>
ParamSpec sketch_rank_param(SecondOrderOptions C::*options) {
  return sketch_rank_param().into(options, &SecondOrderOptions::rank);
}
inline SecondOrderOptions second_order_options(const ParamValues& params) {
  return {params.text("second_order") == "sketch" ? SecondOrderOptions::Form::sketch : SecondOrderOptions::Form::exact,
          params.integer("sketch_rank")};
}

// The form the options choose, behind the calls both share; M^{-1} x comes back in T either way. A sketch of rank
// m >= d keeps the exact state instead: its m-th direction would be lowered (the exact form loses nothing) and it
// would cost O(m d) >= O(d^2) a round: where d <= m the sketch has nothing to offer.
template <class T>
class SecondOrder {
 public:
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

  void reset(std::int64_t dim, double initial_scale, const SecondOrderOptions& options, const char* owner) {
    sketched_ = options.form == SecondOrderOptions::Form::sketch && options.rank < dim;
    if (sketched_) {
      sketch_.reset(dim, initial_scale, static_cast<std::int32_t>(options.rank));
      product_.setZero(dim);
    } else {
      exact_.reset(dim, initial_scale, owner);
    }
  }
  double quadratic(const Instance& x) { return sketched_ ? converted(sketch_.quadratic(x)) : exact_.quadratic(x); }
  template <class X>
  double quadratic_dense(const X& x) {
    return sketched_ ? converted(sketch_.quadratic_dense(x)) : exact_.quadratic_dense(x);
  }
  void add_last(double r) { sketched_ ? sketch_.add_last(r) : exact_.add_last(r); }
  const Vector& last_product() const noexcept { return sketched_ ? product_ : exact_.last_product(); }
  double last_quadratic() const noexcept { return sketched_ ? sketch_.last_quadratic() : exact_.last_quadratic(); }

 private:
  double converted(double r) {
    product_ = sketch_.last_product().template cast<T>();
    return r;
  }

  bool sketched_ = false;
  SecondOrderState<T> exact_;
  SketchedSecondOrderState sketch_;
  Vector product_;  // the sketch's M^{-1} x in T
};

}  // namespace glimpse::algorithms
