// The support-class passive-aggressive step shared by SPA and CSPA:
// the exact minimiser of (1/2) sum_i ||w_i - w_i_old||^2 subject to s_y - s_i >= 1 for all i != y
// (hard-margin multiclass PA, Matsushima et al., SDM 2010). P0's equation (24) swaps the signs of the
// y row and the support rows and drops 1/||x||^2; the form below is the one P0's proof uses.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace glimpse::algorithms {

class SupportClassPa {
 public:
  void reset(std::int32_t num_classes) {
    losses_.assign(static_cast<std::size_t>(num_classes), 0.0);
    order_.assign(static_cast<std::size_t>(num_classes), 0);
    tau_.assign(static_cast<std::size_t>(num_classes), 0.0);
  }

  // Computes tau with Delta w_i = tau_i x for scores s (any indexable of K values), label y and
  // squared_norm = ||x||^2. Returns false, with tau all zero, when nothing changes (all margins >= 1 or
  // x = 0). Allocation-free after reset().
  template <class Scores>
  bool compute(const Scores& s, std::int32_t y, double squared_norm) {
    std::fill(tau_.begin(), tau_.end(), 0.0);
    if (squared_norm <= 0.0) return false;
    const auto k_classes = static_cast<std::int32_t>(tau_.size());
    std::int32_t positive = 0;
    for (std::int32_t i = 0; i < k_classes; ++i) {
      losses_[i] = i == y ? 0.0 : std::max(0.0, 1.0 - static_cast<double>(s[y]) + static_cast<double>(s[i]));
      if (losses_[i] > 0.0) order_[positive++] = i;
    }
    if (positive == 0) return false;
    // Losses descending, index ascending among equals.
    std::sort(order_.begin(), order_.begin() + positive, [&](std::int32_t a, std::int32_t b) {
      return losses_[a] != losses_[b] ? losses_[a] > losses_[b] : a < b;
    });
    // Support set: the longest prefix with k * l_sigma(k) > sum_{j<k} l_sigma(j).
    double prefix_sum = 0.0;
    std::int32_t support = 0;
    while (support < positive && (support + 1) * losses_[order_[support]] > prefix_sum) {
      prefix_sum += losses_[order_[support]];
      ++support;
    }
    const double level = prefix_sum / (support + 1);
    tau_[y] = level / squared_norm;
    for (std::int32_t j = 0; j < support; ++j) tau_[order_[j]] = -(losses_[order_[j]] - level) / squared_norm;
    support_size_ = support;
    return true;
  }

  const std::vector<double>& tau() const noexcept { return tau_; }
  std::int32_t support_size() const noexcept { return support_size_; }

 private:
  std::vector<double> losses_;
  std::vector<std::int32_t> order_;
  std::vector<double> tau_;
  std::int32_t support_size_ = 0;
};

}  // namespace glimpse::algorithms
