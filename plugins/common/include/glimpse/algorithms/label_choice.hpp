// The `of` parameter of accuracy metrics: score the proposed label (what the oracle judged) or the
// greedy prediction.
#pragma once

#include <glimpse/glimpse.hpp>

namespace glimpse::algorithms {

enum class ScoredLabel { proposed, predicted };  // the parameter's choices, in order

// The `of` parameter, bound to the metric's ScoredLabel field.
template <class Metric>
ParamSpec scored_label_param(ScoredLabel Metric::*field) {
  return ParamSpec::choice("of", "proposed", {"proposed", "predicted"},
                           "which label is scored: the one proposed to the oracle, or the greedy prediction")
      .into(field);
}

inline std::int32_t scored_label(const RoundRecord& r, ScoredLabel which) noexcept {
  return which == ScoredLabel::proposed ? r.prediction->proposed : r.prediction->predicted;
}
inline bool scored_label_is_correct(const RoundRecord& r, ScoredLabel which) noexcept {
  return scored_label(r, which) == r.truth->label;
}

}  // namespace glimpse::algorithms
