// The `of` parameter of accuracy metrics: score the proposed label (what the oracle judged) or the
// greedy prediction.
#pragma once

#include <glimpse/glimpse.hpp>

namespace glimpse::algorithms {

inline ParamSpec scored_label_param() {
  return ParamSpec::choice("of", "proposed", {"proposed", "predicted"},
                           "which label is scored: the one proposed to the oracle, or the greedy prediction");
}

inline bool scored_label_is_correct(const RoundRecord& r, bool proposed) noexcept {
  return (proposed ? r.prediction->proposed : r.prediction->predicted) == r.truth->label;
}

}  // namespace glimpse::algorithms
