// Dataset construction and validation.
#include "glimpse/dataset.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "glimpse/error.hpp"

namespace glimpse {

static std::vector<std::string> default_class_names(std::int32_t k) {
  std::vector<std::string> names;
  for (std::int32_t i = 1; i <= k; ++i) names.push_back(std::to_string(i));
  return names;
}

Dataset Dataset::dense(std::int64_t n, std::int32_t d, std::vector<Feature> values, std::vector<std::int32_t> labels,
                       std::int32_t num_classes) {
  if (static_cast<std::int64_t>(labels.size()) != n || static_cast<std::int64_t>(values.size()) != n * d)
    throw Error("dense dataset: " + std::to_string(n) + " rows of " + std::to_string(d) + " features need " +
                std::to_string(n * d) + " values and " + std::to_string(n) + " labels, got " +
                std::to_string(values.size()) + " and " + std::to_string(labels.size()));
  Dataset data;
  data.dim_ = d;
  data.num_classes_ = num_classes;
  data.values_ = std::move(values);
  data.labels_ = std::move(labels);
  data.class_names = default_class_names(num_classes);
  return data;
}

Dataset Dataset::dense_view(std::int64_t n, std::int32_t d, std::shared_ptr<const void> owner, const Feature* values,
                            std::vector<std::int32_t> labels, std::int32_t num_classes) {
  if (static_cast<std::int64_t>(labels.size()) != n)
    throw Error("dense dataset: " + std::to_string(n) + " rows need " + std::to_string(n) + " labels, got " +
                std::to_string(labels.size()));
  Dataset data;
  data.dim_ = d;
  data.num_classes_ = num_classes;
  data.owner_ = std::move(owner);
  data.viewed_ = values;
  data.viewed_count_ = n * d;
  data.labels_ = std::move(labels);
  data.class_names = default_class_names(num_classes);
  return data;
}

Dataset Dataset::sparse(std::int32_t d, std::vector<std::int64_t> row_offsets, std::vector<std::int32_t> indices,
                        std::vector<Feature> values, std::vector<std::int32_t> labels, std::int32_t num_classes) {
  if (row_offsets.size() != labels.size() + 1 || indices.size() != values.size() ||
      row_offsets.back() != static_cast<std::int64_t>(values.size()))
    throw Error("sparse dataset: row offsets, indices, values and labels do not agree in size");
  if (row_offsets.front() != 0) throw Error("sparse dataset: the first row offset must be 0");
  for (std::size_t i = 1; i < row_offsets.size(); ++i)
    if (row_offsets[i] < row_offsets[i - 1])
      throw Error("sparse dataset: row offsets must not decrease (row " + std::to_string(i) + ")");
  Dataset data;
  data.dim_ = d;
  data.num_classes_ = num_classes;
  data.values_ = std::move(values);
  data.labels_ = std::move(labels);
  data.row_offsets_ = std::move(row_offsets);
  data.indices_ = std::move(indices);
  data.class_names = default_class_names(num_classes);
  return data;
}

Dataset Dataset::subset(std::span<const std::int64_t> rows) const {
  std::vector<std::int32_t> labels;
  std::vector<Feature> values;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> indices;
  std::vector<double> probabilities;
  for (const auto i : rows) {
    labels.push_back(labels_[static_cast<std::size_t>(i)]);
    const Instance x = row(i);
    values.insert(values.end(), x.values, x.values + x.nnz);
    if (!is_dense()) {
      indices.insert(indices.end(), x.indices, x.indices + x.nnz);
      offsets.push_back(static_cast<std::int64_t>(values.size()));
    }
    if (!class_probabilities.empty())
      probabilities.insert(probabilities.end(), class_probabilities.begin() + i * num_classes_,
                           class_probabilities.begin() + (i + 1) * num_classes_);
  }
  const auto n = static_cast<std::int64_t>(rows.size());
  Dataset out = is_dense() ? dense(n, dim_, std::move(values), std::move(labels), num_classes_)
                           : sparse(dim_, std::move(offsets), std::move(indices), std::move(values), std::move(labels),
                                    num_classes_);
  out.class_names = class_names;
  out.class_probabilities = std::move(probabilities);
  out.notes = notes;
  return out;
}

namespace {
// No NaN or infinity among the values: tested on the exponent bits, so the loop vectorises (validate's fast path
// for dense rows; the per-value loop then only runs to name the bad value).
bool all_finite(std::span<const Feature> values) noexcept {
  std::uint32_t non_finite = 0;
  for (const Feature v : values)
    non_finite |= static_cast<std::uint32_t>((std::bit_cast<std::uint32_t>(v) & 0x7f800000u) == 0x7f800000u);
  return non_finite == 0;
}
}  // namespace

void Dataset::validate(const std::string& where) const {
  if (size() == 0) throw Error(where, "the dataset has no rows");
  if (dim_ <= 0) throw Error(where, "the dataset has no features");
  if (num_classes_ < 2) throw Error(where, "expected at least 2 classes, got " + std::to_string(num_classes_));
  if (static_cast<std::int32_t>(class_names.size()) != num_classes_)
    throw Error(where,
                "expected " + std::to_string(num_classes_) + " class names, got " + std::to_string(class_names.size()));
  for (std::int64_t i = 0; i < size(); ++i) {
    const auto y = labels_[i];
    if (y < 0 || y >= num_classes_)
      throw Error(where, "row " + std::to_string(i + 1) + ": label " + std::to_string(y + 1) + " outside 1.." +
                             std::to_string(num_classes_));
    const Instance x = row(i);
    if (x.is_dense() && all_finite(x.stored_values())) continue;
    for (std::int32_t j = 0; j < x.nnz; ++j) {
      const std::int32_t feature = x.is_dense() ? j : x.indices[j];
      if (std::isnan(x.values[j]))  // a reader's non_finite: keep marks missing values so
        throw Error(where, "row " + std::to_string(i + 1) + ", feature " + std::to_string(feature + 1) +
                               ": value is missing (NaN); expected the impute transform to fill it before the runs");
      if (!std::isfinite(x.values[j]))
        throw Error(where, "row " + std::to_string(i + 1) + ", feature " + std::to_string(feature + 1) +
                               ": value is not finite (" + std::to_string(x.values[j]) + ")");
      if (!x.is_dense()) {
        if (feature < 0 || feature >= dim_)
          throw Error(where, "row " + std::to_string(i + 1) + ": feature index " + std::to_string(feature + 1) +
                                 " outside 1.." + std::to_string(dim_));
        if (j > 0 && x.indices[j - 1] >= feature)
          throw Error(where, "row " + std::to_string(i + 1) + ": feature indices must be strictly increasing (" +
                                 std::to_string(x.indices[j - 1] + 1) + " then " + std::to_string(feature + 1) + ")");
      }
    }
  }
  if (!class_probabilities.empty() && static_cast<std::int64_t>(class_probabilities.size()) != size() * num_classes_)
    throw Error(where, "class probabilities must hold n*K values");
}

}  // namespace glimpse
