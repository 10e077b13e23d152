// Epsilon-greedy exploration over labels (Banditron, BPA):
// P(r) = (1 - gamma) [r = greedy] + gamma / K, sampled with one uniform draw.
#pragma once

#include <cstdint>
#include <glimpse/interfaces.hpp>
#include <glimpse/linear_model.hpp>
#include <glimpse/random.hpp>
#include <vector>

namespace glimpse::algorithms {

class EpsilonGreedy {
 public:
  void reset(std::int32_t num_classes) { probabilities_.assign(static_cast<std::size_t>(num_classes), 0.0); }

  // Fills the distribution around `greedy` and draws the proposed label from it.
  std::int32_t propose(std::int32_t greedy, double gamma, Rng& rng) {
    const auto k = static_cast<double>(probabilities_.size());
    for (auto& p : probabilities_) p = gamma / k;
    probabilities_[static_cast<std::size_t>(greedy)] += 1.0 - gamma;
    return rng.sample(probabilities_);
  }
  // P(label) of the last call's distribution.
  double probability(std::int32_t label) const { return probabilities_[static_cast<std::size_t>(label)]; }
  const std::vector<double>& probabilities() const noexcept { return probabilities_; }

 private:
  std::vector<double> probabilities_;
};

// Inverse gap weighting over estimated costs (SquareCB; Foster & Rakhlin, ICML 2020, as Vowpal Wabbit implements
// it): with b the cheapest label (first on ties), P(a) = 1 / (K + gamma (cost_a - cost_b)) for a != b and P(b)
// the rest. gamma = 0 is uniform; P(b) >= 1/K >= P(a).
class InverseGapWeighting {
 public:
  void reset(std::int32_t num_classes) { probabilities_.assign(static_cast<std::size_t>(num_classes), 0.0); }

  // Fills the distribution for `costs` (K long) and draws the proposed label from it.
  template <class Costs>
  std::int32_t propose(const Costs& costs, double gamma, Rng& rng) {
    const auto k = static_cast<std::int32_t>(probabilities_.size());
    std::int32_t cheapest = 0;
    for (std::int32_t a = 1; a < k; ++a)
      if (costs[a] < costs[cheapest]) cheapest = a;
    double others = 0;
    for (std::int32_t a = 0; a < k; ++a) {
      if (a == cheapest) continue;
      const double gap = static_cast<double>(costs[a]) - static_cast<double>(costs[cheapest]);
      probabilities_[static_cast<std::size_t>(a)] = 1.0 / (k + gamma * gap);
      others += probabilities_[static_cast<std::size_t>(a)];
    }
    probabilities_[static_cast<std::size_t>(cheapest)] = 1.0 - others;
    return rng.sample(probabilities_);
  }
  double probability(std::int32_t label) const { return probabilities_[static_cast<std::size_t>(label)]; }
  const std::vector<double>& probabilities() const noexcept { return probabilities_; }

 private:
  std::vector<double> probabilities_;
};

// Base of linear learners that propose by epsilon-greedy exploration (Banditron, BPA, SOBA): a linear learner
// whose proposal is drawn around its greedy label from the learner's own stream, with probability gamma_ (the
// subclass binds its `gamma` parameter there). Subclasses implement learn().
template <class T>
class EpsilonGreedyLinearLearner : public LinearLearner<T> {
 public:
  using LinearLearner<T>::LinearLearner;

  void predict(const Instance& x, Prediction& pred) override {
    model_.predict_greedy(x, pred);
    pred.proposed = explore_.propose(pred.predicted, gamma_, rng_);
  }
  void evaluate(const Instance& x, Prediction& pred) override { model_.predict_greedy(x, pred); }

 protected:
  void reset_state(const ProblemShape& shape, std::uint64_t seed) override {
    explore_.reset(shape.K);
    rng_.reseed(seed);
  }
  using LinearLearner<T>::model_;
  double gamma_ = 0.05;
  EpsilonGreedy explore_;
  Rng rng_;
};

}  // namespace glimpse::algorithms
