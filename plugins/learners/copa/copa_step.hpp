// The COPA step (Ralaivola, supplement Theorem 1): the exact minimiser of
//   (1/2) sum_q ||w_q - w_q_old||^2 + (C/2) sum_{q != y} [w_q . x + Delta]_+^2   subject to sum_q w_q = 0,
// in closed form: sort the losses l_q = w_q_old . x + Delta (q != y), take the largest I satisfying the
// theorem's condition, and move every class by (s/Q - alpha_q) x.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace glimpse::algorithms {

class CopaStep {
 public:
  void reset(std::int32_t num_classes) {
    losses_.assign(static_cast<std::size_t>(num_classes), 0.0);
    order_.assign(static_cast<std::size_t>(num_classes), 0);
    alpha_.assign(static_cast<std::size_t>(num_classes), 0.0);
    coefficient_.assign(static_cast<std::size_t>(num_classes), 0.0);
  }

  // Computes alpha and the update coefficients (Delta w_q = coefficient_q x) for scores s_q = w_q . x, the
  // label y, squared_norm = ||x||^2, aggressiveness C > 0 and margin Delta > 0. Returns false, with every
  // coefficient zero, when no index satisfies the condition or x = 0. Allocation-free after reset().
  template <class Scores>
  bool compute(const Scores& s, std::int32_t y, double squared_norm, double aggressiveness, double delta) {
    std::fill(alpha_.begin(), alpha_.end(), 0.0);
    std::fill(coefficient_.begin(), coefficient_.end(), 0.0);
    sum_alpha_ = 0.0;
    active_ = 0;
    if (squared_norm <= 0.0) return false;
    const auto q_classes = static_cast<std::int32_t>(alpha_.size());
    const double q = q_classes;
    const double kappa = 1.0 / aggressiveness + squared_norm;
    std::int32_t others = 0;
    for (std::int32_t c = 0; c < q_classes; ++c) {
      losses_[c] = static_cast<double>(s[c]) + delta;  // not clipped: the condition decides who is active
      if (c != y) order_[others++] = c;
    }
    std::sort(order_.begin(), order_.begin() + others, [&](std::int32_t a, std::int32_t b) {
      return losses_[a] != losses_[b] ? losses_[a] > losses_[b] : a < b;
    });
    // I* = the largest I with l_sigma(I) + ||x||^2 / (kappa Q - (I-1) ||x||^2) sum_{j<I} l_sigma(j) > 0;
    // every I is scanned (the theorem does not promise the satisfying indices form a prefix).
    double prefix = 0.0, prefix_at_best = 0.0;
    for (std::int32_t i = 1; i <= others; ++i) {
      const double loss = losses_[order_[i - 1]];
      if (loss + squared_norm / (kappa * q - (i - 1) * squared_norm) * prefix > 0.0) {
        active_ = i;
        prefix_at_best = prefix + loss;
      }
      prefix += loss;
    }
    if (active_ == 0) return false;
    sum_alpha_ = q / (kappa * q - active_ * squared_norm) * prefix_at_best;
    for (std::int32_t j = 0; j < active_; ++j) {
      const std::int32_t c = order_[j];
      alpha_[c] = (losses_[c] + squared_norm / q * sum_alpha_) / kappa;
    }
    for (std::int32_t c = 0; c < q_classes; ++c) coefficient_[c] = sum_alpha_ / q - alpha_[c];
    return true;
  }

  const std::vector<double>& alpha() const noexcept { return alpha_; }
  const std::vector<double>& coefficients() const noexcept { return coefficient_; }
  double sum_alpha() const noexcept { return sum_alpha_; }
  std::int32_t active_size() const noexcept { return active_; }

 private:
  std::vector<double> losses_;
  std::vector<std::int32_t> order_;
  std::vector<double> alpha_, coefficient_;
  double sum_alpha_ = 0.0;
  std::int32_t active_ = 0;
};

}  // namespace glimpse::algorithms
