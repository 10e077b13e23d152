// The query rules that test the uncertainty r_t = x' M_t^{-1} x of x among the queried instances (BBQ, BBQ_eps,
// DGS): this base keeps M^{-1} (the shared second-order state, exact or sketched as the rule's `second_order` says),
// asks the rule's condition, and adds x to M when it queries.
#pragma once

#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/glimpse.hpp>

namespace glimpse::algorithms {

class UncertaintyRule : public QueryRule {
 public:
  static ParamSpec m0_param() {
    return ParamSpec::real("m0", "1", "M_1 = m0 I (gamma / gamma_l; 1 with the default gamma)").above(0);
  }
  explicit UncertaintyRule(const ParamValues& params)
      : m0_(params.real("m0")), second_order_(second_order_options(params)) {}
  void reset(const ProblemShape& shape) override { inverse_.reset(shape.d, m0_, second_order_, "the query rule"); }
  bool decide(const Instance& x, const Prediction& pred, std::int64_t round, Rng&) final {
    const double r = inverse_.quadratic(x);
    if (!query(r, pred, round)) return false;
    inverse_.add_last(r);
    return true;
  }

 protected:
  virtual bool query(double r, const Prediction& pred, std::int64_t round) const = 0;
  double m0() const noexcept { return m0_; }

 private:
  double m0_;
  SecondOrderOptions second_order_;  // its `second_order` and `sketch_rank` parameters
  SecondOrder<double> inverse_;
};

}  // namespace glimpse::algorithms
