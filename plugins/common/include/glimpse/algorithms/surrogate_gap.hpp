// Gaptron-style bandit learners (van der Hoeven, NeurIPS 2020; van der Hoeven, Fusco, Cesa-Bianchi, NeurIPS 2021;
// plugins/learners/gaptron/README.md), reconstructed: the papers' bodies could not be read here, so the gap map below
// is this project's derivation, not the papers' Table 2 (see docs/bandit-learners.md). The three surrogate losses are
// the ones the papers name (hinge, smooth hinge, logistic); their exact forms here are said at each.
// Round: y* = argmax W x; a = gap(W x) in [0, 1]; p = (1 - gamma) ((1 - a) e_y* + a/K) + gamma/K; propose y~ ~ p.
// On a right proposal (y~ = y, so y is known) W takes an OGD step on the importance-weighted gradient
// grad l(W; x, y) / p(y); a wrong proposal leaves y unknown and the estimate is zero.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glimpse/interfaces.hpp>
#include <glimpse/linear_model.hpp>
#include <glimpse/plugin.hpp>
#include <glimpse/random.hpp>
#include <numbers>
#include <vector>

namespace glimpse::algorithms {

// The surrogate losses of the papers, in the choices' order.
enum class SurrogateLoss { hinge, smooth_hinge, logistic };

// Margin of label y: s_y - max_{k != y} s_k (0 with one class).
template <class Scores>
double label_margin(const Scores& scores, std::int32_t y) {
  const std::int32_t other = argmax_except(scores, y);
  return other < 0 ? 0 : static_cast<double>(scores[y]) - static_cast<double>(scores[other]);
}

// sum_k exp(s_k - shift); with `terms`, each summand is also written there (the softmax's numerators).
template <class Scores>
double shifted_exp_sum(const Scores& scores, double shift, double* terms = nullptr) {
  double total = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(scores.size()); ++k) {
    const double term = std::exp(static_cast<double>(scores[k]) - shift);
    if (terms) terms[k] = term;
    total += term;
  }
  return total;
}

// hinge: l = max(0, 1 - m_y) (Crammer-Singer multiclass hinge).
// smooth_hinge: the hinge with its corner rounded: l = (1 - m)^2 on [0, 1], 1 - 2m below 0, 0 above 1; it is
//   continuously differentiable, and at least 1 wherever y is not the top label (m <= 0).
// logistic: l = log2(sum_k exp(s_k - s_y)), the multiclass logistic loss in bits, so that it is at least 1 wherever
//   y is not the top label (its softmax probability is then at most 1/2).
template <class Scores>
double surrogate_loss(SurrogateLoss loss, const Scores& scores, std::int32_t y) {
  if (loss == SurrogateLoss::logistic) {
    const double sy = static_cast<double>(scores[y]);
    double top = sy;
    for (std::size_t k = 0; k < static_cast<std::size_t>(scores.size()); ++k)
      top = std::max(top, static_cast<double>(scores[k]));
    return (top - sy + std::log(shifted_exp_sum(scores, top))) / std::numbers::ln2;
  }
  const double m = label_margin(scores, y);
  if (loss == SurrogateLoss::hinge) return std::max(0.0, 1 - m);
  if (m >= 1) return 0;
  return m >= 0 ? (1 - m) * (1 - m) : 1 - 2 * m;
}

// d l / d m_y of the margin losses (hinge, smooth_hinge) at margin m, beside their values above.
inline double margin_loss_slope(SurrogateLoss loss, double m) {
  if (loss == SurrogateLoss::hinge) return m < 1 ? -1.0 : 0.0;
  if (m >= 1) return 0.0;
  return m >= 0 ? -2 * (1 - m) : -2.0;
}

// The gap map a(s) = min(1, l(s, y*)): the loss the top label would have, clipped to [0, 1]. It keeps the expected
// zero-one loss of the gap-mixed prediction p' = (1 - a) e_y* + a/K below the loss for every label y: for y = y*,
// a (K-1)/K <= a <= l(s, y*); for y != y*, 1 - a/K <= 1 <= l(s, y), as each loss above is at least 1 there.
template <class Scores>
double surrogate_gap(SurrogateLoss loss, const Scores& scores, std::int32_t top) {
  if (scores.size() < 2) return 0;
  return std::clamp(surrogate_loss(loss, scores, top), 0.0, 1.0);
}

// The learners' `loss` parameter.
template <class Learner>
ParamSpec surrogate_loss_param(SurrogateLoss Learner::*member) {
  return ParamSpec::choice("loss", "hinge", {"hinge", "smooth_hinge", "logistic"},
                           "surrogate loss of the OGD step and the gap map (README.md here)")
      .into(member);
}

// The shared round of gaptron and gappletron; `StepSize` gives eta from the learner's step scale (its bound
// parameter) and a gradient's squared norm (called only for nonzero gradients): gaptron the scale itself,
// gappletron an AdaGrad-norm schedule of diameter B = the scale. The subclass binds gamma_, step_scale_ and loss_.
template <class T, class StepSize>
class SurrogateGapLearner : public LinearLearner<T> {
 public:
  void predict(const Instance& x, Prediction& pred) override {
    model_.predict_greedy(x, pred);
    const double k = static_cast<double>(probabilities_.size());
    double a;
    if (loss_ == SurrogateLoss::logistic) {
      // The gap's softmax, kept for learn()'s gradient: l(s, y*) = log2 sum_k exp(s_k - s_y*), y* the top label.
      exp_total_ = shifted_exp_sum(pred.scores, pred.scores[static_cast<std::size_t>(pred.predicted)],
                                   exponentials_.data());
      a = probabilities_.size() < 2 ? 0.0 : std::clamp(std::log(exp_total_) / std::numbers::ln2, 0.0, 1.0);
    } else {
      a = surrogate_gap(loss_, pred.scores, pred.predicted);
    }
    for (auto& p : probabilities_) p = (1 - gamma_) * a / k + gamma_ / k;
    probabilities_[static_cast<std::size_t>(pred.predicted)] += (1 - gamma_) * (1 - a);
    pred.proposed = rng_.sample(probabilities_);
  }
  void evaluate(const Instance& x, Prediction& pred) override { model_.predict_greedy(x, pred); }

  void learn(const Instance& x, const Prediction& pred, const Feedback& feedback) override {
    const auto* answer = std::get_if<CorrectnessFeedback>(&feedback);
    if (!answer || !answer->correct) return;  // a wrong proposal leaves y unknown: the estimate is zero
    const std::int32_t y = pred.proposed;
    const double weight = 1 / probabilities_[static_cast<std::size_t>(y)];
    if (loss_ == SurrogateLoss::logistic) {
      // grad = (softmax(s) - e_y) x^T / ln 2, from the softmax predict() computed for the gap
      double squared = 0;
      for (std::size_t k = 0; k < gradient_.size(); ++k) {
        gradient_[k] = (exponentials_[k] / exp_total_ - (static_cast<std::int32_t>(k) == y ? 1 : 0)) /
                       std::numbers::ln2;
        squared += gradient_[k] * gradient_[k];
      }
      const double eta = step_size_(step_scale_, weight * weight * squared * x.squared_norm());
      for (auto& g : gradient_) g *= -eta * weight;
      model_.add_to_rows(gradient_, x);
      return;
    }
    // Margin losses: grad = l'(m) (e_y - e_ybar) x^T with ybar the runner-up.
    const double m = label_margin(pred.scores, y);
    const double slope = margin_loss_slope(loss_, m);
    if (slope == 0) return;
    const std::int32_t runner_up = argmax_except(pred.scores, y);
    const double eta = step_size_(step_scale_, 2 * slope * slope * weight * weight * x.squared_norm());
    model_.add_to_row(y, static_cast<T>(-eta * weight * slope), x);
    model_.add_to_row(runner_up, static_cast<T>(eta * weight * slope), x);
  }
  // The proposal distribution of the last predict().
  const std::vector<double>& probabilities() const noexcept { return probabilities_; }

 protected:
  void reset_state(const ProblemShape& shape, std::uint64_t seed) override {
    probabilities_.assign(static_cast<std::size_t>(shape.K), 0.0);
    gradient_.assign(static_cast<std::size_t>(shape.K), 0.0);
    exponentials_.assign(static_cast<std::size_t>(shape.K), 0.0);
    rng_.reseed(seed);
    step_size_.reset();
  }
  using LinearLearner<T>::model_;
  double gamma_ = 0.05, step_scale_ = 1;
  SurrogateLoss loss_ = SurrogateLoss::hinge;
  StepSize step_size_;
  std::vector<double> probabilities_, gradient_;
  std::vector<double> exponentials_;  // logistic: exp(s_k - s_y*) of the last predict(), and their sum
  double exp_total_ = 1;
  Rng rng_;
};

}  // namespace glimpse::algorithms
