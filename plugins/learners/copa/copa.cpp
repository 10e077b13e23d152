// COPA: confusion passive-aggressive (Ralaivola, "Confusion-Based Online Learning and
// a Passive-Aggressive Scheme", supplement Theorem 1). Sum-to-zero class weights, squared hinge on every wrong
// class with margin Delta, exact closed-form update in O(K log K + K nnz).
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

#include "copa_step.hpp"

namespace {

template <class T>
class Copa final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "copa",
            .kind = glimpse::PluginKind::learner,
            .summary =
                "confusion PA: smallest sum-to-zero change penalising [w_q.x + Delta]_+^2 on every wrong "
                "class (exact closed form)",
            .reference =
                "Ralaivola, Confusion-Based Online Learning and a Passive-Aggressive Scheme, NIPS 2012, "
                "supplement Theorem 1",
            .params = {glimpse::ParamSpec::real("c", "1", "aggressiveness C: weight of the squared hinge")
                           .above(0)
                           .into(&Copa::c_),
                       glimpse::ParamSpec::real("delta", "1/(K-1)", "margin Delta of the per-class losses")
                           .above(0)
                           .into(&Copa::delta_),
                       glimpse::ParamSpec::choice("class_weights", "none", {"none", "inverse_frequency"},
                                                  "none: C on every round (the supplement); inverse_frequency: "
                                                  "C t / (K n_y), n_y the labels of class y seen in t rounds (a "
                                                  "reading of the main paper's class-normalised confusion, not in "
                                                  "the supplement)")
                           .into(&Copa::class_weights_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label}};
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    if (!step_.compute(model_.scores(), y, x.squared_norm(), c_ * class_weight(y), delta_)) return;
    model_.add_to_rows(step_.coefficients(), x);
  }
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override {
    step_.reset(shape.K);
    labels_seen_.assign(shape.K, 0);
    rounds_seen_ = 0;
  }

 private:
  enum class ClassWeights { none, inverse_frequency };

  // Counts this round's label first, so the weight is finite and a class seen for the first time gets t / K.
  double class_weight(std::int32_t y) {
    if (class_weights_ == ClassWeights::none) return 1;
    ++rounds_seen_;
    ++labels_seen_[y];
    return rounds_seen_ / (static_cast<double>(labels_seen_.size()) * labels_seen_[y]);
  }

  using glimpse::LinearLearner<T>::model_;
  double c_ = 1, delta_ = 1;
  ClassWeights class_weights_ = ClassWeights::none;
  std::vector<double> labels_seen_;  // counts, held as doubles (exact up to 2^53) for the ratio
  double rounds_seen_ = 0;
  glimpse::algorithms::CopaStep step_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Copa)
