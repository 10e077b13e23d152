// An in-memory dataset: rows (dense row-major or CSR), labels 0..K-1, optional p(y|x).
// Loaded once per process and shared read-only by every run; runs see rows through Instance views.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "glimpse/instance.hpp"
#include "glimpse/params.hpp"

namespace glimpse {

class Dataset {
 public:
  Dataset() = default;

  // values: n*d row-major. labels: 0-based class indices, n of them.
  static Dataset dense(std::int64_t n, std::int32_t d, std::vector<Feature> values, std::vector<std::int32_t> labels,
                       std::int32_t num_classes);
  // Dense rows that live in memory the dataset does not own (e.g. a memory-mapped file), kept alive by `owner`:
  // loading copies nothing. The first mutable_values() call copies them into the dataset's own storage.
  static Dataset dense_view(std::int64_t n, std::int32_t d, std::shared_ptr<const void> owner, const Feature* values,
                            std::vector<std::int32_t> labels, std::int32_t num_classes);
  // CSR: row i holds indices[offsets[i]..offsets[i+1]) (sorted, 0-based, < d) and the same range of values.
  static Dataset sparse(std::int32_t d, std::vector<std::int64_t> row_offsets, std::vector<std::int32_t> indices,
                        std::vector<Feature> values, std::vector<std::int32_t> labels, std::int32_t num_classes);

  std::int64_t size() const noexcept { return static_cast<std::int64_t>(labels_.size()); }
  std::int32_t dim() const noexcept { return dim_; }
  std::int32_t num_classes() const noexcept { return num_classes_; }
  bool is_dense() const noexcept { return row_offsets_.empty(); }
  ProblemShape shape() const noexcept { return {size(), dim(), num_classes(), !is_dense()}; }
  std::int64_t stored_values() const noexcept {
    return owner_ ? viewed_count_ : static_cast<std::int64_t>(values_.size());
  }

  // Every stored value, rows one after another (dense: n x d row-major; sparse: the CSR values).
  std::span<const Feature> stored_features() const noexcept {
    return {feature_data(), static_cast<std::size_t>(stored_values())};
  }

  Instance row(std::int64_t i) const noexcept {
    const Feature* values = feature_data();
    if (is_dense()) return {values + i * dim_, nullptr, dim_, dim_, false};
    const auto begin = row_offsets_[i];
    return {values + begin, indices_.data() + begin, static_cast<std::int32_t>(row_offsets_[i + 1] - begin), dim_,
            true};
  }
  std::int32_t label(std::int64_t i) const noexcept { return labels_[i]; }
  std::span<const std::int32_t> labels() const noexcept { return labels_; }

  // Whether the values live in memory the dataset does not own (dense_view), until mutable_values() copies them.
  bool borrows_values() const noexcept { return owner_ != nullptr; }

  // For transforms, which rewrite values (or labels) in place before the dataset is shared.
  std::span<Feature> mutable_values() {
    if (owner_) {  // rows viewed in memory the dataset does not own: copy them before they change
      values_.assign(viewed_, viewed_ + viewed_count_);
      owner_.reset();
      viewed_ = nullptr;
    }
    return values_;
  }
  std::span<std::int32_t> mutable_labels() noexcept { return labels_; }
  std::span<const std::int64_t> row_offsets() const noexcept { return row_offsets_; }
  std::span<const std::int32_t> column_indices() const noexcept { return indices_; }

  // Names of classes 0..K-1 as the source spelled them (default "1".."K").
  std::vector<std::string> class_names;
  // Empty, or n*K row-major probabilities p(y|x) known to a synthetic generator (for regret).
  std::vector<double> class_probabilities;
  // What a reader or transform must tell the user about this data (e.g. how many rows a kernel map left all
  // zero), one sentence each. The host prints each once, naming the protocol's dataset (and seed), when it
  // prepares the data, and every run keeps them in its trace (dataset_notes).
  std::vector<std::string> notes;

  // For a transform that builds a new dataset from this one's rows: moves over what describes the rows without
  // being them (class names, p(y|x) when the rows are the same ones, notes).
  void take_descriptions_from(Dataset& old) {
    class_names = std::move(old.class_names);
    class_probabilities = std::move(old.class_probabilities);
    notes = std::move(old.notes);
  }

  // A new dataset holding the given rows, in the given order (class names, p(y|x) and notes carried along).
  Dataset subset(std::span<const std::int64_t> rows) const;

  // Checks labels in range, finite values, well-formed CSR; throws Error prefixed with `where`.
  void validate(const std::string& where) const;

 private:
  std::int32_t dim_ = 0;
  std::int32_t num_classes_ = 0;
  const Feature* feature_data() const noexcept { return owner_ ? viewed_ : values_.data(); }

  std::vector<Feature> values_;
  std::shared_ptr<const void> owner_;  // set: the values are viewed_[0, viewed_count_), kept alive by owner_
  const Feature* viewed_ = nullptr;
  std::int64_t viewed_count_ = 0;
  std::vector<std::int32_t> labels_;
  std::vector<std::int64_t> row_offsets_;  // empty: dense
  std::vector<std::int32_t> indices_;
};

// Rows per class, classes 0..K-1 in order.
inline std::vector<std::int64_t> class_counts(const Dataset& data) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(data.num_classes()), 0);
  for (const auto y : data.labels()) ++counts[static_cast<std::size_t>(y)];
  return counts;
}

}  // namespace glimpse
