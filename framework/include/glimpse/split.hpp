// Stratified random splits of a dataset's rows: every class is divided in the same proportions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "glimpse/random.hpp"

namespace glimpse {

// Each class's rows, shuffled by a Fisher-Yates pass of Rng(derive_key(key, k)) for class k, so the order within
// one class does not depend on the others.
inline std::vector<std::vector<std::int64_t>> shuffled_by_class(std::span<const std::int32_t> labels,
                                                                std::size_t num_classes, std::uint64_t key) {
  std::vector<std::vector<std::int64_t>> by_class(num_classes);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(labels.size()); ++i)
    by_class[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])].push_back(i);
  for (std::size_t k = 0; k < by_class.size(); ++k) {
    auto& rows = by_class[k];
    Rng rng(derive_key(key, static_cast<std::uint64_t>(k)));
    for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(i)]);
  }
  return by_class;
}

// Marks round(fractions[k] * n_k) rows of each class k as chosen (true), the first of its shuffled_by_class
// order; returns one flag per row. A larger fraction chooses a superset.
inline std::vector<bool> stratified_choice(std::span<const std::int32_t> labels, std::span<const double> fractions,
                                           std::uint64_t key) {
  const auto by_class = shuffled_by_class(labels, fractions.size(), key);
  std::vector<bool> chosen(labels.size(), false);
  for (std::size_t k = 0; k < fractions.size(); ++k) {
    const auto& rows = by_class[k];
    const auto take = static_cast<std::size_t>(std::llround(fractions[k] * static_cast<double>(rows.size())));
    for (std::size_t i = 0; i < take && i < rows.size(); ++i) chosen[static_cast<std::size_t>(rows[i])] = true;
  }
  return chosen;
}

// The same fraction for every class.
inline std::vector<bool> stratified_choice(std::span<const std::int32_t> labels, std::int32_t num_classes,
                                           double fraction, std::uint64_t key) {
  const std::vector<double> fractions(static_cast<std::size_t>(num_classes), fraction);
  return stratified_choice(labels, fractions, key);
}

// Stratified k-fold assignment: each class's rows, in their shuffled_by_class order, are dealt to folds
// 0..folds-1 in turn (continuing from where the previous class stopped), so fold sizes differ by at most one and
// every fold holds each class's share.
inline std::vector<std::int32_t> stratified_folds(std::span<const std::int32_t> labels, std::int32_t num_classes,
                                                  std::int32_t folds, std::uint64_t key) {
  std::vector<std::int32_t> fold(labels.size(), 0);
  std::int64_t dealt = 0;
  for (const auto& rows : shuffled_by_class(labels, static_cast<std::size_t>(num_classes), key))
    for (const std::int64_t row : rows)
      fold[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(dealt++ % folds);
  return fold;
}

}  // namespace glimpse
