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
    ++steps_;
    normaliser_sum_ += normaliser;
    const double multiplier = std::sqrt(static_cast<double>(steps_) / normaliser_sum_);
    sensitivity *= multiplier;
    // (1 - exp(-2 eta s)) / s, its first-order form where the difference would cancel (as VW does).
    const double move = eta * sensitivity < 1e-6 ? 2 * eta : -std::expm1(-2 * eta * sensitivity) / sensitivity;
    const T scale = static_cast<T>(error * move * multiplier);
    x.for_each_stored([&](std::int32_t j, Feature v) {
      if (v != 0) w[j] += scale * static_cast<T>(v) * rates_[static_cast<std::size_t>(j)];
    });
  }

 private:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix squared_gradients_, largest_magnitudes_;
  std::vector<T> rates_;  // this step's r_j (VW keeps them in a spare weight slot)
  double lowest_target_ = 0, highest_target_ = 0;
  std::int64_t steps_ = 0;
  double normaliser_sum_ = 0;
};

}  // namespace glimpse::algorithms
