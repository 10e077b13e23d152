// Helpers for linear learners: a K x d weight matrix (one contiguous row per class) scored against
// dense or sparse instance views without allocating (the argmax conventions are in glimpse/prediction.hpp).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "glimpse/instance.hpp"
#include "glimpse/interfaces.hpp"
#include "glimpse/params.hpp"
#include "glimpse/plugin.hpp"
#include "glimpse/prediction.hpp"

namespace glimpse {

// The `precision` parameter every linear learner declares: its weights' scalar type.
inline ParamSpec precision_param() {
  return ParamSpec::choice("precision", "float", {"float", "double"},
                           "scalar type of the weights and scores (features are stored as float)");
}

// Creates Learner<float> or Learner<double> as the `precision` parameter says.
template <template <class> class Learner>
PluginObject* make_with_precision(const ParamValues& params) {
  if (params.text("precision") == "double") return detail::create_plugin<Learner<double>>(params);
  return detail::create_plugin<Learner<float>>(params);
}

// Where a model keeps w_k[j]. Class-major (one contiguous row per class) makes a dense score one contiguous dot
// product; feature-major (the K weights of feature j side by side) makes a sparse row touch nnz short runs of
// memory instead of K x nnz scattered ones, which is what limits sparse rounds on large d. A feature-major run is
// padded with zeros to whole cache lines (K = 20 floats: 32), so each run starts a line and is read in
// fixed-width blocks whose sums stay in registers.
enum class WeightLayout { class_major, feature_major };

template <class T>
class LinearModel {
 public:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using FeatureMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  // Weights per cache line: the block width of the feature-major loops, as a fixed-size array so the compiler
  // vectorises across classes (left to itself, it vectorises across features with gathers).
  static constexpr std::int32_t line_lanes = 64 / static_cast<std::int32_t>(sizeof(T));
  using Line = Eigen::Array<T, line_lanes, 1>;

  // Zero weights, feature-major when the problem's rows are sparse.
  void reset(const ProblemShape& shape) {
    reset(shape.K, shape.d, shape.sparse ? WeightLayout::feature_major : WeightLayout::class_major);
  }
  void reset(std::int32_t num_classes, std::int32_t dim, WeightLayout layout = WeightLayout::class_major) {
    layout_ = layout;
    num_classes_ = num_classes;
    stride_ = (num_classes + line_lanes - 1) / line_lanes * line_lanes;
    if (layout == WeightLayout::class_major) {
      weights_.setZero(num_classes, dim);
      by_feature_.resize(0, 0);
    } else {
      by_feature_.setZero(stride_, dim);
      weights_.resize(0, 0);
    }
    upcoming_ = {};
    requested_ = nullptr;
    scores_.setZero(num_classes);
    step_.setZero(stride_);
    if constexpr (!std::is_same_v<T, Feature>) converted_.setZero(dim);
  }

  std::int32_t num_classes() const noexcept { return num_classes_; }
  WeightLayout layout() const noexcept { return layout_; }
  // The K x d matrix of a class-major model (reset with WeightLayout::class_major), for row-wise algebra.
  Matrix& weights() noexcept { return weights_; }
  const Matrix& weights() const noexcept { return weights_; }
  // Every weight as one flat vector, in either layout: for scaling, zeroing and norms (a feature-major model's
  // zero padding is in it too, and stays zero under those).
  Eigen::Map<Vector> all_weights() noexcept { return {storage(), stored_weights()}; }
  Eigen::Map<const Vector> all_weights() const noexcept { return {storage(), stored_weights()}; }
  T weight(std::int32_t k, std::int32_t j) const noexcept {
    return layout_ == WeightLayout::class_major ? weights_(k, j) : by_feature_(k, j);
  }

  // The row the next compute_scores() will most likely see (Learner::prefetch's hint). Sparse rows on a
  // feature-major model wait on their weights: the next update asks for the upcoming row's weights feature by
  // feature, between its own read-modify-writes, so those loads overlap the update; compute_scores() then asks
  // only when nobody has. Only when loads start depends on the hint, never a result. Valid until the next
  // compute_scores() or reset().
  void expect(const Instance& upcoming) noexcept {
    if (layout_ == WeightLayout::feature_major && upcoming.sparse) upcoming_ = upcoming;
  }

  // s_i = w_i . x for every class; the result lives in the model until the next call.
  const Vector& compute_scores(const Instance& x) noexcept {
    const bool requested = x.indices != nullptr && x.indices == requested_;
    upcoming_ = {};
    requested_ = nullptr;
    if (layout_ == WeightLayout::feature_major && x.sparse) {
      // Ask for every feature's weights first (unless an update already did): the loads are independent, so
      // they overlap instead of each waiting behind the arithmetic of the previous features.
      if (!requested) request_features(x, 0);
      // Up to four cache lines of classes per pass over x's features: fixed-width sums the compiler keeps in
      // registers, instead of K scores loaded and stored again for every feature.
      const std::int32_t blocks = stride_ / line_lanes;
      for (std::int32_t first = 0; first < blocks; first += 4) {
        switch (std::min(4, blocks - first)) {
          case 1: score_blocks<1>(x, first); break;
          case 2: score_blocks<2>(x, first); break;
          case 3: score_blocks<3>(x, first); break;
          default: score_blocks<4>(x, first); break;
        }
      }
    } else if (x.is_dense()) {
      if constexpr (std::is_same_v<T, Feature>) {
        if (layout_ == WeightLayout::class_major)
          scores_.noalias() = weights_ * x.dense();
        else
          scores_.noalias() = by_feature_.topRows(num_classes_) * x.dense();
      } else {
        converted_ = x.dense().template cast<T>();
        if (layout_ == WeightLayout::class_major)
          scores_.noalias() = weights_ * converted_;
        else
          scores_.noalias() = by_feature_.topRows(num_classes_) * converted_;
      }
    } else {
      for (std::int32_t k = 0; k < num_classes_; ++k) scores_[k] = row_dot(k, x);
    }
    return scores_;
  }
  const Vector& scores() const noexcept { return scores_; }

  T row_dot(std::int32_t k, const Instance& x) const noexcept {
    if (layout_ == WeightLayout::feature_major) {
      T sum = 0;
      if (x.is_dense())
        for (std::int32_t j = 0; j < x.dim; ++j) sum += by_feature_(k, j) * static_cast<T>(x.values[j]);
      else
        for (std::int32_t e = 0; e < x.nnz; ++e) sum += by_feature_(k, x.indices[e]) * static_cast<T>(x.values[e]);
      return sum;
    }
    const T* w = weights_.row(k).data();
    if (x.is_dense()) {
      if constexpr (std::is_same_v<T, Feature>) return weights_.row(k).dot(x.dense().transpose());
      T sum = 0;
      for (std::int32_t j = 0; j < x.dim; ++j) sum += w[j] * static_cast<T>(x.values[j]);
      return sum;
    }
    T sum = 0;
    for (std::int32_t j = 0; j < x.nnz; ++j) sum += w[x.indices[j]] * static_cast<T>(x.values[j]);
    return sum;
  }

  // w_k += c * x
  void add_to_row(std::int32_t k, T c, const Instance& x) noexcept {
    if (layout_ == WeightLayout::feature_major) {
      if (x.is_dense()) {
        for (std::int32_t j = 0; j < x.dim; ++j) by_feature_(k, j) += c * static_cast<T>(x.values[j]);
      } else {
        for (std::int32_t e = 0; e < x.nnz; ++e) {
          request_upcoming(e);
          by_feature_(k, x.indices[e]) += c * static_cast<T>(x.values[e]);
        }
        request_upcoming_rest(x.nnz);
      }
      return;
    }
    if (x.is_dense()) {
      if constexpr (std::is_same_v<T, Feature>) {
        weights_.row(k) += c * x.dense().transpose();
      } else {
        T* w = weights_.row(k).data();
        for (std::int32_t j = 0; j < x.dim; ++j) w[j] += c * static_cast<T>(x.values[j]);
      }
      return;
    }
    T* w = weights_.row(k).data();
    for (std::int32_t j = 0; j < x.nnz; ++j) w[x.indices[j]] += c * static_cast<T>(x.values[j]);
  }

  // w_k += c_k * x for every class k (zero coefficients skipped): an update that moves several rows at once,
  // done in one sweep over x's features when the weights are feature-major.
  void add_to_rows(std::span<const double> coefficients, const Instance& x) noexcept {
    add_to_rows([&](std::int32_t k) { return coefficients[static_cast<std::size_t>(k)]; }, x);
  }
  // The same with c_k = coefficient_of(k).
  template <class CoefficientOf>
    requires std::is_invocable_r_v<double, CoefficientOf, std::int32_t>
  void add_to_rows(const CoefficientOf& coefficient_of, const Instance& x) noexcept {
    if (layout_ == WeightLayout::feature_major && x.sparse) {
      T* step = step_.data();  // zero past K, so the padding stays zero
      for (std::int32_t k = 0; k < num_classes_; ++k) step[k] = static_cast<T>(coefficient_of(k));
      for (std::int32_t e = 0; e < x.nnz; ++e) {
        request_upcoming(e);
        const T v = static_cast<T>(x.values[e]);
        T* w = feature_weights(x.indices[e]);
        for (std::int32_t block = 0; block < stride_; block += line_lanes)
          Eigen::Map<Line>(w + block) += v * Eigen::Map<const Line>(step + block);
      }
      request_upcoming_rest(x.nnz);
      return;
    }
    for (std::int32_t k = 0; k < num_classes_; ++k) {
      const double c = coefficient_of(k);
      if (c != 0.0) add_to_row(k, static_cast<T>(c), x);
    }
  }

  // Copies the current scores into a prediction and sets the greedy label as both predicted and proposed.
  void predict_greedy(const Instance& x, Prediction& pred) noexcept {
    compute_scores(x);
    for (Eigen::Index k = 0; k < scores_.size(); ++k) pred.scores[k] = static_cast<double>(scores_[k]);
    pred.predicted = argmax(scores_);
    pred.proposed = pred.predicted;
  }

 private:
  // Starts loading feature j's weight lines (feature-major layout).
  void request_feature(std::int32_t j) const noexcept {
    prefetch_bytes(feature_weights(j), static_cast<std::ptrdiff_t>(sizeof(T)) * stride_);
  }
  // The same for a sparse row's features from the `first`-th on.
  void request_features(const Instance& row, std::int32_t first) const noexcept {
    for (std::int32_t e = first; e < row.nnz; ++e) request_feature(row.indices[e]);
  }
  // Inside an update's loop over a sparse row: the upcoming row's e-th feature, if any.
  void request_upcoming(std::int32_t e) const noexcept {
    if (e < upcoming_.nnz) request_feature(upcoming_.indices[e]);
  }
  // After that loop (of `done` features): the upcoming row's remaining features; its weights are then all asked for.
  void request_upcoming_rest(std::int32_t done) noexcept {
    if (upcoming_.nnz == 0) return;
    request_features(upcoming_, done);
    requested_ = upcoming_.indices;
    upcoming_ = {};
  }
  // Feature j's K weights and their padding (feature-major layout).
  T* feature_weights(std::int32_t j) noexcept { return by_feature_.data() + static_cast<std::ptrdiff_t>(j) * stride_; }
  const T* feature_weights(std::int32_t j) const noexcept {
    return by_feature_.data() + static_cast<std::ptrdiff_t>(j) * stride_;
  }
  // Scores of the classes in cache lines [first_block, first_block + Blocks) of a feature-major model, summed
  // in one pass over a sparse x (the same additions, in the same order, as one pass per line).
  template <std::int32_t Blocks>
  void score_blocks(const Instance& x, std::int32_t first_block) noexcept {
    std::array<Line, Blocks> sums;
    for (Line& sum : sums) sum.setZero();
    const std::int32_t offset = first_block * line_lanes;
    for (std::int32_t e = 0; e < x.nnz; ++e) {
      const T value = static_cast<T>(x.values[e]);
      const T* w = feature_weights(x.indices[e]) + offset;
      for (std::int32_t b = 0; b < Blocks; ++b) sums[b] += value * Eigen::Map<const Line>(w + b * line_lanes);
    }
    for (std::int32_t b = 0; b < Blocks && offset + b * line_lanes < num_classes_; ++b) {
      const std::int32_t begin = offset + b * line_lanes;
      std::copy_n(sums[b].data(), std::min(line_lanes, num_classes_ - begin), scores_.data() + begin);
    }
  }
  Eigen::Index stored_weights() const noexcept {
    return layout_ == WeightLayout::class_major ? weights_.size() : by_feature_.size();
  }
  T* storage() noexcept { return layout_ == WeightLayout::class_major ? weights_.data() : by_feature_.data(); }
  const T* storage() const noexcept {
    return layout_ == WeightLayout::class_major ? weights_.data() : by_feature_.data();
  }

  Instance upcoming_;                        // expect()'s row, until an update asks for its weights
  const std::int32_t* requested_ = nullptr;  // indices of the row whose weights an update asked for
  WeightLayout layout_ = WeightLayout::class_major;
  std::int32_t num_classes_ = 0;
  std::int32_t stride_ = 0;        // feature-major: K rounded up to whole cache lines
  Matrix weights_;                 // class-major storage
  FeatureMajorMatrix by_feature_;  // feature-major storage: column j holds the K weights of feature j
  Vector scores_;
  Vector converted_;  // x in T, for dense products when T is not the storage type
  Vector step_;       // add_to_rows' coefficients in T, zero-padded to stride_
};

// What linear learners share, so that one is its spec, its fields and its update: W as a LinearModel reset to zero
// (feature-major on sparse rows unless the learner asks for class-major rows, e.g. to read a class's weights as
// one row), the greedy prediction (argmax of W x; the scores stay in model_ for learn()) and the prefetch of the next
// row's weights. A learner with more state resets it in reset_state().
template <class T>
class LinearLearner : public Learner {
 public:
  explicit LinearLearner(std::optional<WeightLayout> layout = std::nullopt) : layout_(layout) {}
  void reset(const ProblemShape& shape, std::uint64_t seed) final {
    if (layout_)
      model_.reset(shape.K, shape.d, *layout_);
    else
      model_.reset(shape);
    reset_state(shape, seed);
  }
  void predict(const Instance& x, Prediction& pred) override { model_.predict_greedy(x, pred); }
  void prefetch(const Instance& upcoming) noexcept override { model_.expect(upcoming); }

 protected:
  virtual void reset_state(const ProblemShape&, std::uint64_t) {}
  LinearModel<T> model_;

 private:
  std::optional<WeightLayout> layout_;
};

}  // namespace glimpse

// Exports a learner template instantiated for float and double, chosen by its `precision` parameter
// (which Template<float>::spec() must declare, e.g. with precision_param()).
#define GLIMPSE_PRECISION_PLUGIN(Template)                                                          \
  extern "C" GLIMPSE_API const ::glimpse::PluginEntry* glimpse_plugin_entry() noexcept {            \
    static const ::glimpse::PluginEntry entry{GLIMPSE_PLUGIN_API_VERSION,                           \
                                              &::glimpse::detail::describe_plugin<Template<float>>, \
                                              &::glimpse::make_with_precision<Template>};           \
    return &entry;                                                                                  \
  }
