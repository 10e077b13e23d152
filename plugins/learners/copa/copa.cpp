// COPA: confusion passive-aggressive (ALGORITHMS.md section 6; Ralaivola, "Confusion-Based Online Learning and
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
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label}};
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0 || !step_.compute(model_.scores(), y, x.squared_norm(), c_, delta_)) return;
    model_.add_to_rows(step_.coefficients(), x);
  }
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override { step_.reset(shape.K); }

 private:
  using glimpse::LinearLearner<T>::model_;
  double c_ = 1, delta_ = 1;
  glimpse::algorithms::CopaStep step_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Copa)
