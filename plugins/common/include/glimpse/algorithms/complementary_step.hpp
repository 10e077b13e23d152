// CSPA's update for a complementary label c (a class the instance is not): the exact minimiser of
// sum_i ||w_i - w_i_old||^2 keeping the score differences among the other classes and bringing the loss
// down to (1 - beta) loss (CSPA paper eq. 19).
#pragma once

#include <algorithm>
#include <cstdint>
#include <glimpse/linear_model.hpp>
#include <limits>

namespace glimpse::algorithms {

// 1 + s_c - max_{i != c} s_i: the loss of complementary label c (not clipped; >= 1 when c is the argmax).
template <class Scores>
double complementary_margin_loss(const Scores& s, std::int32_t c) {
  double best_other = -std::numeric_limits<double>::infinity();
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(s.size()); ++i)
    if (i != c) best_other = std::max(best_other, static_cast<double>(s[i]));
  return 1.0 + static_cast<double>(s[c]) - best_other;
}

// w_i += beta loss / (K ||x||^2) x for i != c;  w_c -= (K - 1) beta loss / (K ||x||^2) x.
// Nothing changes when loss <= 0 or x = 0.
template <class T>
void apply_complementary_step(LinearModel<T>& model, const Instance& x, std::int32_t c, double beta, double loss) {
  const double squared_norm = x.squared_norm();
  if (loss <= 0.0 || squared_norm <= 0.0) return;
  const std::int32_t k = model.num_classes();
  const double others = beta * loss / (k * squared_norm);
  model.add_to_rows([&](std::int32_t i) { return i == c ? -(k - 1) * others : others; }, x);
}

}  // namespace glimpse::algorithms
