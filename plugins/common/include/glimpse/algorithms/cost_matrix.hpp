// Cost matrices for cost-sensitive prediction: C(i, j) >= 0 is the cost of
// predicting j when the truth is i, zero on the diagonal. Shared by learners and metrics through the same
// three parameters, so a protocol states its costs the same way everywhere.
//   zero_one: C = 1 1^T - I;
//   block:    `cost_groups` groups of consecutive classes, 0 inside a group and 1 across;
//   tree:     classes are the leaves, in order, of a complete binary tree; cost = path length between leaves;
//   file:     a K x K matrix (spaces, tabs or commas; '#' comments) from `cost_file`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/matrix_file.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace glimpse::algorithms {

inline std::vector<ParamSpec> cost_params() {
  return {ParamSpec::choice("costs", "zero_one", {"zero_one", "block", "tree", "file"},
                            "the cost matrix: 0/1, block (cost_groups groups), tree (leaves of a binary tree), "
                            "or cost_file"),
          ParamSpec::integer("cost_groups", "2", "groups of consecutive classes for block costs").at_least(1),
          ParamSpec::path("cost_file", "K x K cost matrix file for costs = file (row: truth, column: prediction)")};
}

class CostMatrix {
 public:
  explicit CostMatrix(const ParamValues& params) : kind_(params.text("costs")), groups_(params.integer("cost_groups")) {
    const auto file = params.path("cost_file");
    if (kind_ == "file") {
      if (file.empty()) throw Error("costs = file needs the cost_file parameter");
      file_ = readers::read_matrix(file, 0.0, std::numeric_limits<double>::max(), "a non-negative cost");
      for (std::int32_t i = 0; i < std::min(file_->rows, file_->cols); ++i)
        if (file_->at(i, i) != 0.0)
          throw Error(file.string() + ":" + std::to_string(file_->row_lines[static_cast<std::size_t>(i)]),
                      "diagonal entry " + std::to_string(i + 1) + " is " + readers::format_number(file_->at(i, i)) +
                          "; a correct prediction must cost 0");
    } else if (!file.empty()) {
      throw Error("cost_file needs costs = file (costs is '" + kind_ + "')");
    }
  }

  void reset(std::int32_t k) {
    k_ = k;
    values_.assign(static_cast<std::size_t>(k) * static_cast<std::size_t>(k), 0.0);
    if (file_) {
      readers::require_square(*file_, k);
      values_ = file_->values;
    } else {
      if (kind_ == "block" && groups_ > k)
        throw Error("cost_groups " + std::to_string(groups_) + " exceeds K = " + std::to_string(k));
      for (std::int32_t i = 0; i < k; ++i)
        for (std::int32_t j = 0; j < k; ++j) values_[index(i, j)] = builtin(i, j);
    }
    max_ = *std::max_element(values_.begin(), values_.end());
  }

  double operator()(std::int32_t truth, std::int32_t predicted) const noexcept {
    return values_[index(truth, predicted)];
  }
  double max() const noexcept { return max_; }
  // sigma^2(C) = max_i sum_j (C(j, i) - mean_j C(j, i))^2, the column variation in P1's bounds: 1 - 1/K for 0/1 costs, (K/r)(1 - 1/r) for r blocks.
  double column_variation() const noexcept {
    double largest = 0.0;
    for (std::int32_t i = 0; i < k_; ++i) {
      double mean = 0.0;
      for (std::int32_t j = 0; j < k_; ++j) mean += values_[index(j, i)];
      mean /= k_;
      double sum = 0.0;
      for (std::int32_t j = 0; j < k_; ++j) sum += (values_[index(j, i)] - mean) * (values_[index(j, i)] - mean);
      largest = std::max(largest, sum);
    }
    return largest;
  }
  std::int32_t size() const noexcept { return k_; }

  // The label of least expected cost under class probabilities p (lowest index on ties): the Bayes
  // prediction when p is the true p(y|x).
  template <class Probabilities>
  std::int32_t bayes(const Probabilities& p) const noexcept {
    std::int32_t best = 0;
    double best_cost = expected(p, 0);
    for (std::int32_t i = 1; i < k_; ++i) {
      const double c = expected(p, i);
      if (c < best_cost) best = i, best_cost = c;
    }
    return best;
  }
  // CS-Selectron's scores S(i) = sum_j (C_max - C(j, i)) p_j: the larger, the cheaper.
  template <class Probabilities, class Scores>
  void scores(const Probabilities& p, Scores& out) const noexcept {
    double total = 0.0;
    for (std::int32_t j = 0; j < k_; ++j) total += p[j];
    for (std::int32_t i = 0; i < k_; ++i) out[static_cast<std::size_t>(i)] = max_ * total - expected(p, i);
  }
  // sum_j p_j C(j, predicted)
  template <class Probabilities>
  double expected(const Probabilities& p, std::int32_t predicted) const noexcept {
    double sum = 0.0;
    for (std::int32_t j = 0; j < k_; ++j) sum += p[j] * values_[index(j, predicted)];
    return sum;
  }

 private:
  std::size_t index(std::int32_t i, std::int32_t j) const noexcept {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(k_) + static_cast<std::size_t>(j);
  }
  double builtin(std::int32_t i, std::int32_t j) const {
    if (i == j) return 0.0;
    if (kind_ == "zero_one") return 1.0;
    if (kind_ == "block") {
      const auto group = [&](std::int32_t c) { return static_cast<std::int64_t>(c) * groups_ / k_; };
      return group(i) == group(j) ? 0.0 : 1.0;
    }
    // tree: leaves i and j meet `levels` levels up; the path between them has 2 * levels edges.
    int levels = 0;
    for (std::int32_t a = i, b = j; a != b; a >>= 1, b >>= 1) ++levels;
    return 2.0 * levels;
  }
  std::string kind_;
  std::int64_t groups_;
  std::optional<readers::MatrixFile> file_;
  std::int32_t k_ = 0;
  std::vector<double> values_;
  double max_ = 0.0;
};

}  // namespace glimpse::algorithms
