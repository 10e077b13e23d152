// What a learner says about an instance, and what the world says back.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace glimpse {

// Filled by Learner::predict into a buffer the caller owns and reuses across rounds.
struct Prediction {
  std::vector<double> scores;  // one per class, sized to K by the caller before the first round
  std::int32_t predicted = 0;  // greedy label (argmax of scores, lowest index on ties)
  std::int32_t proposed = 0;   // label offered to the oracle; differs from `predicted` when exploring
};

struct NoFeedback {};  // the query rule did not ask this round
struct LabelFeedback {
  std::int32_t label;
};  // the true label
struct CorrectnessFeedback {
  bool correct;
};  // whether Prediction::proposed was the true label
struct ComplementaryFeedback {
  std::int32_t label;
};  // a label the instance does not have
// A set of labels containing the true one; the span points into the oracle's buffer, valid for this round.
struct CandidateSetFeedback {
  std::span<const std::int32_t> labels;
};
struct NoisyLabelFeedback {
  std::int32_t label;
};  // a label drawn from a noise model given the truth

using Feedback = std::variant<NoFeedback, LabelFeedback, CorrectnessFeedback, ComplementaryFeedback,
                              CandidateSetFeedback, NoisyLabelFeedback>;

// Same order as the variant's alternatives.
enum class FeedbackKind : std::uint8_t { none, label, correctness, complementary, candidate_set, noisy_label };
inline constexpr int feedback_kind_count = 6;

inline FeedbackKind kind_of(const Feedback& feedback) noexcept { return static_cast<FeedbackKind>(feedback.index()); }
std::string_view feedback_kind_name(FeedbackKind kind) noexcept;

// A set of feedback kinds a learner accepts. Accepting `label` implies accepting `noisy_label` (a
// full-feedback learner cannot tell them apart), and every learner accepts `none`.
class FeedbackKinds {
 public:
  constexpr FeedbackKinds() = default;
  constexpr FeedbackKinds(std::initializer_list<FeedbackKind> kinds) {
    for (auto k : kinds) bits_ |= bit(k);
  }
  constexpr bool contains(FeedbackKind k) const noexcept {
    if (k == FeedbackKind::none) return true;
    if (k == FeedbackKind::noisy_label && (bits_ & bit(FeedbackKind::label))) return true;
    return (bits_ & bit(k)) != 0;
  }
  constexpr bool empty() const noexcept { return bits_ == 0; }
  constexpr void insert(FeedbackKind k) noexcept { bits_ |= bit(k); }
  std::vector<FeedbackKind> kinds() const;

 private:
  static constexpr unsigned bit(FeedbackKind k) noexcept { return 1u << static_cast<unsigned>(k); }
  unsigned bits_ = 0;
};

}  // namespace glimpse

namespace glimpse {
// The label a full-feedback learner learns from: Label or NoisyLabel feedback; -1 for any other kind.
inline std::int32_t full_label(const Feedback& feedback) noexcept {
  if (const auto* f = std::get_if<LabelFeedback>(&feedback)) return f->label;
  if (const auto* f = std::get_if<NoisyLabelFeedback>(&feedback)) return f->label;
  return -1;
}

// The argmax convention every learner shares: index of the largest value, lowest index on ties (so with W = 0 the
// first prediction is class 0).
template <class Vector>
std::int32_t argmax(const Vector& values) noexcept {
  std::int32_t best = 0;
  for (std::int32_t i = 1; i < static_cast<std::int32_t>(values.size()); ++i)
    if (values[i] > values[best]) best = i;
  return best;
}

// Index of the largest value other than `excluded`, lowest index on ties (the "runner-up").
template <class Vector>
std::int32_t argmax_except(const Vector& values, std::int32_t excluded) noexcept {
  std::int32_t best = -1;
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(values.size()); ++i)
    if (i != excluded && (best < 0 || values[i] > values[best])) best = i;
  return best;
}

}  // namespace glimpse
