// Vowpal Wabbit's default online least-squares step (gd.cc with --adaptive --normalized --invariant and
// power_t 0.5; Ross, Mineiro & Langford, "Normalized online learning", UAI 2013; Karampatziakis & Langford,
// "Online importance weight aware updates", UAI 2011), for learners that keep one linear regressor per row of a
// weight matrix (squarecb's cost per class, oaa's score per class). All rows share the rounds count and the
// normaliser sum, as VW's regressors of one model do.
//
// Per weight j of a row: G_j, the sum of squared gradients (AdaGrad), and N_j, the largest |x_j| so far; when
// N_j grows, w_j is rescaled as if the new scale had been the old one, so that no step depends on a feature's
// scale. Rate r_j = 1 / (sqrt(G_j) N_j), times sqrt(steps / sum over steps of sum_j (x_j / N_j)^2). The step is
// the importance-invariant one: it moves the row's prediction from p to y - (y - p) exp(-2 eta s), s =
// sum_j x_j^2 r_j (never past the target). Predictions are clipped to [lowest, highest target seen] (both start
// at 0), as VW's scorer clips a regression's output. Zero features are skipped: VW's rows do not store them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <glimpse/instance.hpp>

namespace glimpse::algorithms {

template <class T>
class NormalizedLeastSquares {
 public:
  void reset(std::int32_t rows, std::int32_t d) {
    squared_gradients_.setZero(rows, d);
    largest_magnitudes_.setZero(rows, d);
    rates_.assign(static_cast<std::size_t>(d), T{0});
    lowest_target_ = highest_target_ = 0;
    steps_ = 0;
    normaliser_sum_ = 0;
  }

  double clip(double prediction) const noexcept { return std::clamp(prediction, lowest_target_, highest_target_); }

  // One step of `weights`'s row r (raw prediction w_r . x, before the step) toward `target`.
  template <class Weights>
  void step(Weights& weights, std::int32_t r, const Instance& x, double raw_prediction, double target, double eta) {
    lowest_target_ = std::min(lowest_target_, target);
    highest_target_ = std::max(highest_target_, target);
    const double error = target - clip(raw_prediction);
    if (error == 0) return;
    auto w = weights.row(r);
    auto squares = squared_gradients_.row(r);
    auto largest = largest_magnitudes_.row(r);
    const T squared_gradient = static_cast<T>(4 * error * error);
    double normaliser = 0, sensitivity = 0;
    if (x.is_dense()) {
      dense_rates(x, w.data(), squares.data(), largest.data(), squared_gradient, normaliser, sensitivity);
    } else {
      x.for_each_stored([&](std::int32_t j, Feature v) {
        if (v == 0) return;
        const T value = static_cast<T>(v), magnitude = std::abs(value);
        squares[j] += squared_gradient * value * value;
        if (magnitude > largest[j]) {
          if (largest[j] > 0) w[j] *= largest[j] / magnitude;
          largest[j] = magnitude;
        }
        normaliser += static_cast<double>(value * value / (largest[j] * largest[j]));
        const T rate = T{1} / (std::sqrt(squares[j]) * largest[j]);
        rates_[static_cast<std::size_t>(j)] = rate;
        sensitivity += static_cast<double>(value * value * rate);
      });
    }
    ++steps_;
    normaliser_sum_ += normaliser;
    const double multiplier = std::sqrt(static_cast<double>(steps_) / normaliser_sum_);
    sensitivity *= multiplier;
    // (1 - exp(-2 eta s)) / s, its first-order form where the difference would cancel (as VW does).
    const double move = eta * sensitivity < 1e-6 ? 2 * eta : -std::expm1(-2 * eta * sensitivity) / sensitivity;
    const T scale = static_cast<T>(error * move * multiplier);
    // A zero feature's rate is 0 or stale (finite): it adds 0 either way.
    x.for_each_stored(
        [&](std::int32_t j, Feature v) { w[j] += scale * static_cast<T>(v) * rates_[static_cast<std::size_t>(j)]; });
  }

 private:
  // The loop above for a dense row, without branches and with the two sums split into kLanes partial sums, so
  // that it vectorises: per coordinate the same arithmetic, selected rather than skipped for zero features (whose
  // rate is set to 0, so that the step adds 0 to their weight); only the sums' order differs from the sparse loop.
  static constexpr int kLanes = 16;
  void dense_rates(const Instance& x, T* w, T* squares, T* largest, T squared_gradient, double& normaliser,
                   double& sensitivity) {
    double normaliser_lanes[kLanes] = {}, sensitivity_lanes[kLanes] = {};
    const std::int32_t d = x.dim, blocked = d / kLanes * kLanes;
    for (std::int32_t j0 = 0; j0 < blocked; j0 += kLanes)
      dense_block<kLanes>(x.values + j0, w + j0, squares + j0, largest + j0, rates_.data() + j0, squared_gradient,
                          normaliser_lanes, sensitivity_lanes);
    for (std::int32_t j = blocked; j < d; ++j)
      dense_block<1>(x.values + j, w + j, squares + j, largest + j, rates_.data() + j, squared_gradient,
                     normaliser_lanes, sensitivity_lanes);
    for (int lane = 0; lane < kLanes; ++lane) {
      normaliser += normaliser_lanes[lane];
      sensitivity += sensitivity_lanes[lane];
    }
  }
  template <int Width>
  static void dense_block(const Feature* __restrict values, T* __restrict w, T* __restrict squares,
                          T* __restrict largest, T* __restrict rates, T squared_gradient,
                          double* __restrict normaliser_lanes, double* __restrict sensitivity_lanes) {
    for (int lane = 0; lane < Width; ++lane) {
      const T value = static_cast<T>(values[lane]), magnitude = std::abs(value), square = value * value;
      const T sum = squares[lane] + squared_gradient * square;
      squares[lane] = sum;
      // Every division is done whatever the selection (a division the source skips may not be hoisted into a
      // vector blend); a zero feature has sum > 0 or divides by 1, so nothing here traps or turns NaN.
      const T old = largest[lane], grown = std::max(old, magnitude);
      const bool stored = value != 0;
      const T safe_grown = stored ? grown : T{1};
      const T rescale = old / safe_grown, rate_if_stored = T{1} / (std::sqrt(sum) * safe_grown);
      w[lane] *= magnitude > old && old > 0 ? rescale : T{1};
      largest[lane] = grown;
      const T rate = stored ? rate_if_stored : T{0};
      rates[lane] = rate;
      normaliser_lanes[lane] += static_cast<double>(square / (safe_grown * safe_grown));
      sensitivity_lanes[lane] += static_cast<double>(square * rate);
    }
  }

  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix squared_gradients_, largest_magnitudes_;
  std::vector<T> rates_;  // this step's r_j (VW keeps them in a spare weight slot)
  double lowest_target_ = 0, highest_target_ = 0;
  std::int64_t steps_ = 0;
  double normaliser_sum_ = 0;
};

}  // namespace glimpse::algorithms
