// L-BFGS (Nocedal & Wright, Algorithm 7.4/7.5) with a backtracking Armijo line search, for smooth convex
// objectives that are minimised again and again after small changes (a GLM refit after one more labelled
// sample): the iterate is warm-started by the caller and the curvature pairs are kept between calls, since
// the objective's Hessian changes by a low-rank term. The caller may pass f and its gradient at the start
// (known without a pass over the data after one more sample). Buffers are sized once by reset(); minimize()
// does not allocate.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace glimpse::algorithms {

class Lbfgs {
 public:
  struct Result {
    std::int32_t iterations = 0;
    double gradient_norm = 0.0;  // infinity norm at the returned point
    bool converged = false;      // gradient_norm <= tolerance
  };

  void reset(Eigen::Index size, std::int32_t memory) {
    memory_ = std::max<std::int32_t>(1, memory);
    s_.setZero(size, memory_);
    y_.setZero(size, memory_);
    rho_.setZero(memory_);
    alpha_.setZero(memory_);
    gradient_.setZero(size);
    direction_.setZero(size);
    trial_.setZero(size);
    trial_gradient_.setZero(size);
    stored_ = 0;
    newest_ = -1;
  }

  // Minimises f from x (updated in place). `objective(x, gradient)` returns f(x) and writes its gradient.
  // Stops when ||gradient||_inf <= tolerance, after max_iterations, or when the line search cannot decrease f.
  template <class Objective>
  Result minimize(Objective&& objective, Eigen::Ref<Eigen::VectorXd> x, double tolerance, std::int32_t max_iterations) {
    double f = objective(x, gradient_);
    return iterate(objective, x, f, tolerance, max_iterations);
  }

  // The same from a known f(x) and gradient, both updated to the returned point's.
  template <class Objective>
  Result minimize(Objective&& objective, Eigen::Ref<Eigen::VectorXd> x, double& f, Eigen::Ref<Eigen::VectorXd> gradient,
                  double tolerance, std::int32_t max_iterations) {
    gradient_ = gradient;
    const Result result = iterate(objective, x, f, tolerance, max_iterations);
    gradient = gradient_;
    return result;
  }

 private:
  template <class Objective>
  Result iterate(Objective& objective, Eigen::Ref<Eigen::VectorXd> x, double& f, double tolerance,
                 std::int32_t max_iterations) {
    Result result;
    for (;;) {
      result.gradient_norm = gradient_.lpNorm<Eigen::Infinity>();
      if (result.gradient_norm <= tolerance) {
        result.converged = true;
        return result;
      }
      if (result.iterations == max_iterations) return result;
      ++result.iterations;
      search_direction();
      double slope = gradient_.dot(direction_);
      if (!(slope < 0.0)) {  // stale curvature pairs: fall back to steepest descent
        stored_ = 0;
        search_direction();
        slope = gradient_.dot(direction_);
      }
      double step = 1.0, f_trial = 0.0;
      bool decreased = false;
      for (int halvings = 0; halvings < 50; ++halvings, step *= 0.5) {
        trial_ = x + step * direction_;
        f_trial = objective(trial_, trial_gradient_);
        if (f_trial <= f + 1e-4 * step * slope) {
          decreased = true;
          break;
        }
      }
      if (!decreased) return result;
      remember(trial_ - x, trial_gradient_ - gradient_);
      x = trial_;
      gradient_ = trial_gradient_;
      f = f_trial;
    }
  }

  // direction = -H gradient by the two-loop recursion; without curvature pairs, a steepest-descent step of
  // length at most 1.
  void search_direction() {
    direction_ = -gradient_;
    if (stored_ == 0) {
      direction_ /= std::max(1.0, direction_.norm());
      return;
    }
    std::int32_t slot = newest_;
    for (std::int32_t i = 0; i < stored_; ++i, slot = (slot + memory_ - 1) % memory_) {
      alpha_[slot] = rho_[slot] * s_.col(slot).dot(direction_);
      direction_ -= alpha_[slot] * y_.col(slot);
    }
    direction_ *= s_.col(newest_).dot(y_.col(newest_)) / y_.col(newest_).squaredNorm();
    slot = (newest_ + memory_ - stored_ + 1) % memory_;
    for (std::int32_t i = 0; i < stored_; ++i, slot = (slot + 1) % memory_) {
      const double beta = rho_[slot] * y_.col(slot).dot(direction_);
      direction_ += (alpha_[slot] - beta) * s_.col(slot);
    }
  }

  template <class S, class Y>
  void remember(const S& s, const Y& y) {
    const double sy = s.dot(y);
    if (!(sy > 1e-12 * y.squaredNorm())) return;  // not a curvature pair (convex f: rounding)
    const std::int32_t slot = (newest_ + 1) % memory_;
    s_.col(slot) = s;
    y_.col(slot) = y;
    rho_[slot] = 1.0 / sy;
    newest_ = slot;
    stored_ = std::min(stored_ + 1, memory_);
  }

  std::int32_t memory_ = 1, stored_ = 0, newest_ = -1;
  Eigen::MatrixXd s_, y_;
  Eigen::VectorXd rho_, alpha_, gradient_, direction_, trial_, trial_gradient_;
};

}  // namespace glimpse::algorithms
