// Helpers for linear learners: a K x d weight matrix (one contiguous row per class) scored against
// dense or sparse instance views without allocating, and the argmax conventions of ALGORITHMS.md.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <type_traits>

#include "glimpse/instance.hpp"
#include "glimpse/params.hpp"
#include "glimpse/plugin.hpp"
#include "glimpse/prediction.hpp"

namespace glimpse {

// Index of the largest value, lowest index on ties.
template <class Vector>
std::int32_t argmax(const Vector& values) noexcept {
  std::int32_t best = 0;
  for (std::int32_t i = 1; i < static_cast<std::int32_t>(values.size()); ++i)
    if (values[i] > values[best]) best = i;
  return best;
}

// Index of the largest value other than `excluded`, lowest index on ties (the "runner-up").
template <class Vector>
std::int32_t argmax_except(const Vector& values, std::int32_t excluded) noexcept {
  std::int32_t best = -1;
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(values.size()); ++i)
    if (i != excluded && (best < 0 || values[i] > values[best])) best = i;
  return best;
}

// The `precision` parameter every linear learner declares: its weights' scalar type.
inline ParamSpec precision_param() {
  return ParamSpec::choice("precision", "float", {"float", "double"},
                           "scalar type of the weights and scores (features are stored as float)");
}

// Creates Learner<float> or Learner<double> as the `precision` parameter says.
template <template <class> class Learner>
PluginObject* make_with_precision(const ParamValues& params) {
  if (params.text("precision") == "double") return new Learner<double>(params);
  return new Learner<float>(params);
}

template <class T>
class LinearModel {
 public:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

  void reset(std::int32_t num_classes, std::int32_t dim) {
    weights_.setZero(num_classes, dim);
    scores_.setZero(num_classes);
    if constexpr (!std::is_same_v<T, Feature>) converted_.setZero(dim);
  }

  std::int32_t num_classes() const noexcept { return static_cast<std::int32_t>(weights_.rows()); }
  Matrix& weights() noexcept { return weights_; }
  const Matrix& weights() const noexcept { return weights_; }

  // s_i = w_i . x for every class; the result lives in the model until the next call.
  const Vector& compute_scores(const Instance& x) noexcept {
    if (x.is_dense()) {
      if constexpr (std::is_same_v<T, Feature>) {
        scores_.noalias() = weights_ * x.dense();
      } else {
        converted_ = x.dense().template cast<T>();
        scores_.noalias() = weights_ * converted_;
      }
    } else {
      for (Eigen::Index k = 0; k < weights_.rows(); ++k) scores_[k] = row_dot(static_cast<std::int32_t>(k), x);
    }
    return scores_;
  }
  const Vector& scores() const noexcept { return scores_; }

  T row_dot(std::int32_t k, const Instance& x) const noexcept {
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

  // Copies the current scores into a prediction and sets the greedy label as both predicted and proposed.
  void predict_greedy(const Instance& x, Prediction& pred) noexcept {
    compute_scores(x);
    for (Eigen::Index k = 0; k < scores_.size(); ++k) pred.scores[k] = static_cast<double>(scores_[k]);
    pred.predicted = argmax(scores_);
    pred.proposed = pred.predicted;
  }

 private:
  Matrix weights_;
  Vector scores_;
  Vector converted_;  // x in T, for dense products when T is not the storage type
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
