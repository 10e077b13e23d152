// Exploration around any full-feedback learner, named in the protocol: the wrapped learner scores x, the
// explorer draws the proposal from epsilon-greedy, softmax or inverse-gap weighting over those scores, and on a
// right proposal the wrapped learner learns that label (its ordinary full-label update); a wrong proposal tells it
// nothing (NoFeedback) or, with `wrong complementary`, that the proposed label is not the instance's (a
// complementary label: a regression learner such as oaa then moves that class's score toward its negative target,
// SquareCB's regression target). With `importance repeat`, a right proposal of probability p is learnt n times
// (with the round's prediction), n = floor(1/p) plus one more with probability frac(1/p), drawn from a stream of its
// own: E[n] = 1/p, so the base's expected update is the full-label one (an importance-weighted update for any base,
// which has no weight to scale), and one update per round is expected, as with full labels.
//
//   {"name": "explorer", "params": {"base": "arow", "rule": "softmax"}, "grid": {"base.r": [0.1, 1]}}
#include <cmath>
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/glimpse.hpp>
#include <memory>
#include <vector>

namespace {

class Explorer final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "explorer",
        .kind = glimpse::PluginKind::learner,
        .summary = "bandit exploration (epsilon-greedy, softmax, inverse gap) around any full-feedback learner",
        .reference = "epsilon-greedy as the Banditron's; inverse gap weighting as SquareCB's (Foster & Rakhlin 2020)",
        .params = {glimpse::ParamSpec::learner("base", "perceptron",
                                               "the full-feedback learner explored around (its parameters: base.NAME)")
                       .into(&Explorer::base_),
                   glimpse::ParamSpec::choice("rule", "epsilon_greedy", {"epsilon_greedy", "softmax", "inverse_gap"},
                                              "how the proposal is drawn from the base's scores s")
                       .into(&Explorer::rule_),
                   glimpse::ParamSpec::real("epsilon", "0.05", "epsilon_greedy: uniform share (epsilon)")
                       .above(0)
                       .at_most(1)
                       .into(&Explorer::epsilon_),
                   glimpse::ParamSpec::real("temperature", "0.1", "softmax: P(a) ~ exp(s_a / tau) (tau)")
                       .above(0)
                       .into(&Explorer::temperature_),
                   glimpse::ParamSpec::real("gamma", "10", "inverse_gap: P(a) = 1/(K + gamma (s_max - s_a)) (gamma)")
                       .at_least(0)
                       .into(&Explorer::gamma_),
                   glimpse::ParamSpec::choice("wrong", "ignore", {"ignore", "complementary"},
                                              "what a wrong proposal tells the base: nothing, or a complementary "
                                              "label (bases that do not learn from one ignore it)")
                       .into(&Explorer::wrong_),
                   glimpse::ParamSpec::choice("importance", "none", {"none", "repeat"},
                                              "none: a right proposal is learnt once; repeat: 1/p times in "
                                              "expectation (p its probability), an importance-weighted update")
                       .into(&Explorer::importance_)},
        .accepts = {glimpse::FeedbackKind::correctness}};
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t seed) override {
    base_->reset(shape, glimpse::derive_key(seed, 1));
    rng_.reseed(seed);
    repeat_rng_.reseed(glimpse::derive_key(seed, 2));
    greedy_.reset(shape.K);
    inverse_gap_.reset(shape.K);
    probabilities_.assign(static_cast<std::size_t>(shape.K), 0.0);
    costs_.assign(static_cast<std::size_t>(shape.K), 0.0);
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    base_->predict(x, pred);
    switch (rule_) {
      case Rule::epsilon_greedy:
        pred.proposed = greedy_.propose(pred.predicted, epsilon_, rng_);
        return;
      case Rule::inverse_gap:
        for (std::size_t a = 0; a < costs_.size(); ++a) costs_[a] = -pred.scores[a];
        pred.proposed = inverse_gap_.propose(costs_, gamma_, rng_);
        return;
      case Rule::softmax: {
        const double top = pred.scores[static_cast<std::size_t>(pred.predicted)];
        double total = 0;
        for (std::size_t a = 0; a < probabilities_.size(); ++a)
          total += probabilities_[a] = std::exp((pred.scores[a] - top) / temperature_);
        for (auto& p : probabilities_) p /= total;
        pred.proposed = rng_.sample(probabilities_);
        return;
      }
    }
  }
  void evaluate(const glimpse::Instance& x, glimpse::Prediction& pred) override { base_->evaluate(x, pred); }
  void prefetch(const glimpse::Instance& upcoming) noexcept override { base_->prefetch(upcoming); }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (answer && answer->correct) {
      if (importance_ == Importance::none) return base_->learn(x, pred, glimpse::LabelFeedback{pred.proposed});
      const double weight = 1 / proposal_probability(pred.proposed);
      auto times = static_cast<std::int64_t>(weight);
      if (repeat_rng_.uniform() < weight - static_cast<double>(times)) ++times;
      for (std::int64_t i = 0; i < times; ++i) base_->learn(x, pred, glimpse::LabelFeedback{pred.proposed});
    } else if (answer && wrong_ == Wrong::complementary)
      base_->learn(x, pred, glimpse::ComplementaryFeedback{pred.proposed});
    else
      base_->learn(x, pred, glimpse::NoFeedback{});
  }

 private:
  // P(label) under the last predict()'s proposal distribution.
  double proposal_probability(std::int32_t label) const {
    switch (rule_) {
      case Rule::epsilon_greedy:
        return greedy_.probability(label);
      case Rule::inverse_gap:
        return inverse_gap_.probability(label);
      case Rule::softmax:
        break;
    }
    return probabilities_[static_cast<std::size_t>(label)];
  }

  enum class Rule { epsilon_greedy, softmax, inverse_gap };  // the choices' order
  enum class Wrong { ignore, complementary };
  enum class Importance { none, repeat };
  Rule rule_ = Rule::epsilon_greedy;
  double epsilon_ = 0.05, temperature_ = 0.1, gamma_ = 10;
  Wrong wrong_ = Wrong::ignore;
  Importance importance_ = Importance::none;
  std::unique_ptr<glimpse::Learner> base_;
  glimpse::algorithms::EpsilonGreedy greedy_;
  glimpse::algorithms::InverseGapWeighting inverse_gap_;
  std::vector<double> probabilities_, costs_;
  glimpse::Rng rng_, repeat_rng_;
};

}  // namespace

GLIMPSE_PLUGIN(Explorer)
