// Gaptron-style bandit learners (van der Hoeven, NeurIPS 2020; van der Hoeven, Fusco, Cesa-Bianchi, NeurIPS 2021;
// plugins/learners/gaptron/README.md), reconstructed: the papers' bodies could not be read here, so the gap map and the
// hinge-loss instance below are this project's derivation, not the papers' Table 2 (see docs/bandit-learners.md).
// Round: y* = argmax W x; a = gap(W x) in [0, 1]; p = (1 - gamma) ((1 - a) e_y* + a/K) + gamma/K; propose y~ ~ p.
// On a right proposal (y~ = y, so y is known) the multiclass hinge loss l = max(0, 1 - s_y + max_{k != y} s_k)
// gives the importance-weighted gradient (e_ybar - e_y) x^T / p(y) when l > 0, and W takes an OGD step on it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glimpse/interfaces.hpp>
#include <glimpse/linear_model.hpp>
#include <glimpse/random.hpp>
#include <vector>

namespace glimpse::algorithms {

// The hinge gap map a(s) = clip(1 - (s_y* - max_{k != y*} s_k), 0, 1). It keeps the expected zero-one loss of
// the gap-mixed prediction p' = (1 - a) e_y* + a/K below the hinge loss for every label y: for y = y*,
// a (K-1)/K <= a <= l(s, y*); for y != y*, 1 - a/K <= 1 <= l(s, y) (s_y <= s_y*).
template <class Scores>
double hinge_gap(const Scores& scores, std::int32_t top) {
  const std::int32_t second = argmax_except(scores, top);
  if (second < 0) return 0;
  return std::clamp(1 - (static_cast<double>(scores[top]) - static_cast<double>(scores[second])), 0.0, 1.0);
}

// Multiclass hinge loss of label y under scores s.
template <class Scores>
double multiclass_hinge(const Scores& scores, std::int32_t y) {
  return std::max(0.0, 1 - static_cast<double>(scores[y]) + static_cast<double>(scores[argmax_except(scores, y)]));
}

// The shared round of gaptron and gappletron; `StepSize` gives eta from the learner's step scale (its bound
// parameter) and a gradient's squared norm (called only for nonzero gradients): gaptron the scale itself,
// gappletron an AdaGrad-norm schedule of diameter B = the scale. The subclass binds gamma_ and step_scale_.
template <class T, class StepSize>
class SurrogateGapLearner : public LinearLearner<T> {
 public:
  void predict(const Instance& x, Prediction& pred) override {
    model_.predict_greedy(x, pred);
    const double k = static_cast<double>(probabilities_.size());
    const double a = hinge_gap(pred.scores, pred.predicted);
    for (auto& p : probabilities_) p = (1 - gamma_) * a / k + gamma_ / k;
    probabilities_[static_cast<std::size_t>(pred.predicted)] += (1 - gamma_) * (1 - a);
    pred.proposed = rng_.sample(probabilities_);
  }
  void evaluate(const Instance& x, Prediction& pred) override { model_.predict_greedy(x, pred); }

  void learn(const Instance& x, const Prediction& pred, const Feedback& feedback) override {
    const auto* answer = std::get_if<CorrectnessFeedback>(&feedback);
    if (!answer || !answer->correct) return;  // a wrong proposal leaves y unknown: the estimate is zero
    const std::int32_t y = pred.proposed;
    if (multiclass_hinge(pred.scores, y) <= 0) return;
    const std::int32_t runner_up = argmax_except(pred.scores, y);
    const double weight = 1 / probabilities_[static_cast<std::size_t>(y)];
    const double eta = step_size_(step_scale_, 2 * weight * weight * x.squared_norm());
    model_.add_to_row(y, static_cast<T>(eta * weight), x);
    model_.add_to_row(runner_up, static_cast<T>(-eta * weight), x);
  }
  // The proposal distribution of the last predict().
  const std::vector<double>& probabilities() const noexcept { return probabilities_; }

 protected:
  void reset_state(const ProblemShape& shape, std::uint64_t seed) override {
    probabilities_.assign(static_cast<std::size_t>(shape.K), 0.0);
    rng_.reseed(seed);
    step_size_.reset();
  }
  using LinearLearner<T>::model_;
  double gamma_ = 0.05, step_scale_ = 1;
  StepSize step_size_;
  std::vector<double> probabilities_;
  Rng rng_;
};

}  // namespace glimpse::algorithms
