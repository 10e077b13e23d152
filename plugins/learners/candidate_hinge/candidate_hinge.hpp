// Learning from candidate label sets (reconstructed from the losses the partial-label
// paper cites: average prediction hinge of Cour et al., max prediction hinge of Nguyen & Caruana):
//   APH = [1 - mean_{i in Y} s_i + max_{j not in Y} s_j]_+     MPH = [1 - max_{i in Y} s_i + max_{j not in Y} s_j]_+
// and the Perceptron / Pegasos learners that descend them.
#pragma once

#include <cmath>
#include <cstdint>
#include <glimpse/interfaces.hpp>
#include <glimpse/linear_model.hpp>
#include <span>
#include <vector>

namespace glimpse::algorithms {

enum class CandidateLoss { average, max };

// The candidate set of a round: CandidateSet feedback, or {y} for label feedback; empty for other kinds.
inline std::span<const std::int32_t> candidate_set(const Feedback& feedback, std::int32_t& single) {
  if (const auto* set = std::get_if<CandidateSetFeedback>(&feedback)) return set->labels;
  single = full_label(feedback);
  if (single >= 0) return {&single, 1};
  return {};
}

// Loss and the rows its subgradient touches: W -= eta * subgradient is rows in Y (APH: all of them, each
// + eta/|Y| x; MPH: the best of them, + eta x) and row `rival` (- eta x). Lowest index on ties.
struct CandidateStep {
  double loss = 0.0;
  std::int32_t rival = -1;    // argmax of the scores outside Y (-1: Y holds every class, no update)
  std::int32_t best_in = -1;  // argmax of the scores inside Y
};

class CandidateHinge {
 public:
  void reset(std::int32_t num_classes) { member_.assign(static_cast<std::size_t>(num_classes), 0); }

  template <class Scores>
  CandidateStep evaluate(const Scores& s, std::span<const std::int32_t> y, CandidateLoss kind) {
    for (auto label : y) member_[static_cast<std::size_t>(label)] = 1;
    CandidateStep step;
    double sum_in = 0.0;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(member_.size()); ++i) {
      const double v = static_cast<double>(s[i]);
      if (member_[static_cast<std::size_t>(i)]) {
        sum_in += v;
        if (step.best_in < 0 || v > static_cast<double>(s[step.best_in])) step.best_in = i;
      } else if (step.rival < 0 || v > static_cast<double>(s[step.rival])) {
        step.rival = i;
      }
    }
    for (auto label : y) member_[static_cast<std::size_t>(label)] = 0;
    if (step.rival < 0 || y.empty()) return step;
    const double in =
        kind == CandidateLoss::average ? sum_in / static_cast<double>(y.size()) : static_cast<double>(s[step.best_in]);
    step.loss = std::max(0.0, 1.0 - in + static_cast<double>(s[step.rival]));
    return step;
  }

 private:
  std::vector<char> member_;
};

// Calls add(row, coefficient) for W <- W - eta * subgradient (nothing when the loss is 0).
template <class Add>
void candidate_descent(const CandidateStep& step, std::span<const std::int32_t> y, CandidateLoss kind, double eta,
                       Add&& add) {
  if (step.loss <= 0.0) return;
  if (kind == CandidateLoss::average) {
    for (auto label : y) add(label, eta / static_cast<double>(y.size()));
  } else {
    add(step.best_in, eta);
  }
  add(step.rival, -eta);
}

// Avg/Max Perceptron: W <- W - eta * subgradient whenever the loss is positive (margin < 1, not only on mistakes).
template <class T, CandidateLoss Kind>
class CandidatePerceptron final : public LinearLearner<T> {
 public:
  static PluginSpec spec() {
    const bool average = Kind == CandidateLoss::average;
    return {.name = average ? "avg_perceptron" : "max_perceptron",
            .kind = PluginKind::learner,
            .summary = average ? "Perceptron on the average prediction hinge loss of a candidate label set"
                               : "Perceptron on the max prediction hinge loss of a candidate label set",
            .reference = "Bhattacharjee & Manwani, PAKDD 2020 (Algorithms 1-2)",
            .params = {ParamSpec::real("eta", "1", "step size").above(0).into(&CandidatePerceptron::eta_),
                       precision_param()},
            .accepts = {FeedbackKind::candidate_set, FeedbackKind::label}};
  }
  void learn(const Instance& x, const Prediction&, const Feedback& feedback) override {
    std::int32_t single = -1;
    const auto y = candidate_set(feedback, single);
    if (y.empty()) return;
    const CandidateStep step = hinge_.evaluate(model_.scores(), y, Kind);
    candidate_descent(step, y, Kind, eta_,
                      [&](std::int32_t row, double c) { model_.add_to_row(row, static_cast<T>(c), x); });
  }

 private:
  void reset_state(const ProblemShape& shape, std::uint64_t) override { hinge_.reset(shape.K); }
  using LinearLearner<T>::model_;
  double eta_ = 1;
  CandidateHinge hinge_;
};

// Avg/Max Pegasos (and multiclass Pegasos with exact labels): round t, eta_t = 1/(lambda t),
// W <- (1 - eta_t lambda) W - eta_t subgradient, then projection onto ||W||_F <= 1/sqrt(lambda).
// W = a V is kept scaled so a round costs O(K nnz), with ||V||_F^2 maintained incrementally.
template <class T, CandidateLoss Kind, bool ExactLabels>
class CandidatePegasos final : public LinearLearner<T> {
 public:
  static PluginSpec spec() {
    const bool average = Kind == CandidateLoss::average;
    PluginSpec s{.name = ExactLabels ? "pegasos"
                         : average   ? "avg_pegasos"
                                     : "max_pegasos",
                 .kind = PluginKind::learner,
                 .revision = 2,  // 2: W = a V folded before V can overflow float (was: only when a < 1e-100)
                 .summary = ExactLabels ? "multiclass Pegasos on the hinge loss of the true label"
                            : average   ? "Pegasos on the average prediction hinge loss of a candidate label set"
                                        : "Pegasos on the max prediction hinge loss of a candidate label set",
                 .reference =
                     "Shalev-Shwartz et al. (Pegasos); Bhattacharjee & Manwani, PAKDD 2020 (Algorithms "
                     "3-4)",
                 .params = {ParamSpec::real("lambda", "0.1", "regularisation; ||W||_F stays <= 1/sqrt(lambda)")
                                .above(0)
                                .into(&CandidatePegasos::lambda_),
                            precision_param()}};
    s.accepts = ExactLabels ? FeedbackKinds{FeedbackKind::label}
                            : FeedbackKinds{FeedbackKind::candidate_set, FeedbackKind::label};
    return s;
  }
  void reset_state(const ProblemShape& shape, std::uint64_t) override {
    hinge_.reset(shape.K);
    scale_ = 1.0;
    squared_norm_ = 0.0;
    round_ = 0;
  }
  void predict(const Instance& x, Prediction& pred) override {
    model_.predict_greedy(x, pred);  // scores of V
    for (auto& s : pred.scores) s *= scale_;
    pred.predicted = pred.proposed = argmax(pred.scores);
  }
  void learn(const Instance& x, const Prediction& pred, const Feedback& feedback) override {
    ++round_;
    std::int32_t single = -1;
    const auto y = candidate_set(feedback, single);
    const CandidateStep step = y.empty() ? CandidateStep{} : hinge_.evaluate(pred.scores, y, Kind);  // at W_t
    const double eta = 1.0 / (lambda_ * static_cast<double>(round_));
    const double shrink = 1.0 - eta * lambda_;
    if (shrink <= 0.0) {  // round 1: the shrink factor is 0, W_2 depends only on round 1's subgradient
      model_.all_weights().setZero();
      scale_ = 1.0;
      squared_norm_ = 0.0;
    } else {
      scale_ *= shrink;
    }
    const double x_norm = x.squared_norm();
    candidate_descent(step, y, Kind, eta, [&](std::int32_t row, double c) {
      const double v = c / scale_;  // in units of V
      const double row_dot = shrink <= 0.0 ? 0.0 : static_cast<double>(model_.scores()[row]);
      squared_norm_ += 2.0 * v * row_dot + v * v * x_norm;
      model_.add_to_row(row, static_cast<T>(v), x);
    });
    if ((round_ & 4095) == 0) squared_norm_ = static_cast<double>(model_.all_weights().squaredNorm());  // stop drift
    const double norm = scale_ * std::sqrt(std::max(squared_norm_, 0.0));
    const double radius = 1.0 / std::sqrt(lambda_);
    if (norm > radius) scale_ *= radius / norm;
    // Fold the scale back into V while V's entries (about ||W|| / scale) stay far inside T's range: at a small
    // lambda the projection shrinks the scale by orders of magnitude a round, and a float V overflowed to inf
    // (NaN scores) after some 40 rounds when the fold waited for 1e-100.
    if (scale_ < (sizeof(T) == sizeof(float) ? 1e-20 : 1e-100)) {
      model_.all_weights() *= static_cast<T>(scale_);
      squared_norm_ *= scale_ * scale_;
      scale_ = 1.0;
    }
  }

 private:
  using LinearLearner<T>::model_;
  double lambda_ = 0.1;
  CandidateHinge hinge_;
  double scale_ = 1.0, squared_norm_ = 0.0;
  std::int64_t round_ = 0;
};

}  // namespace glimpse::algorithms
