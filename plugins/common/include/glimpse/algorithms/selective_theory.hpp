// The confidence width theta_t of P1's theorems, for the query rules' `eta_mode = theory`:
//   theta_t = (8 sqrt(d K) / gamma_l) sqrt(log(1 + 2 R^2 gamma_l / gamma) log(d K t / delta))
//             + sqrt(2 gamma omega^2 / gamma_l),
// with gamma_l the link's strong-convexity constant (1/(e K^2) logistic, 1 - 1/K linear), gamma = m0 gamma_l (the
// rules' M_1 = m0 I = (gamma / gamma_l) I), ||x|| <= R and ||W^i|| <= omega. The theory's multipliers are then
// eta_eps = 4 sigma^2(C) gamma_u^2 theta_t^2 (BBQ_eps) and eta_DGS = 2 sigma(C) gamma_u theta_t (DGS), gamma_u = 1.
// They are worst-case constants: on P1's simulations they make every rule query every round.
#pragma once

#include <cmath>
#include <cstdint>
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/glimpse.hpp>
#include <numbers>
#include <vector>

namespace glimpse::algorithms {

// gamma_l, the strong-convexity constant of the GLM link: 1/(e K^2) for the logistic link (for
// ||x|| <= 1, ||W^i|| <= 1), 1 - 1/K for the linear one.
inline double link_gamma_l(bool logistic, std::int32_t k) {
  return logistic ? 1.0 / (std::numbers::e * k * k) : 1.0 - 1.0 / k;
}

class TheoryWidth {
 public:
  // eta_mode, then the constants theta_t needs, then the cost matrix sigma^2(C) comes from.
  static std::vector<ParamSpec> params() {
    std::vector<ParamSpec> specs{
        ParamSpec::choice("eta_mode", "constant", {"constant", "theory"},
                          "constant: the multiplier is the rule's own parameter; theory: P1's value from theta_t "
                          "(needs link, delta, radius, omega and the cost matrix)"),
        ParamSpec::choice("link", "logistic", {"logistic", "linear"},
                          "theory: the learner's link, which fixes gamma_l (1/(e K^2) or 1 - 1/K)"),
        ParamSpec::real("delta", "0.05", "theory: failure probability delta").above(0).below(1),
        ParamSpec::real("radius", "1", "theory: R, a bound on ||x||").above(0),
        ParamSpec::real("omega", "1", "theory: omega, a bound on the norm of each row of W").above(0)};
    for (auto& p : cost_params()) specs.push_back(std::move(p));
    return specs;
  }

  TheoryWidth(const ParamValues& params, double m0)
      : theory_(params.text("eta_mode") == "theory"),
        logistic_(params.text("link") == "logistic"),
        delta_(params.real("delta")),
        radius_(params.real("radius")),
        omega_(params.real("omega")),
        m0_(m0),
        costs_(params) {}

  bool enabled() const noexcept { return theory_; }

  void reset(const ProblemShape& shape) {
    costs_.reset(shape.K);
    dk_ = static_cast<double>(shape.d) * shape.K;
    gamma_l_ = link_gamma_l(logistic_, shape.K);
    const double gamma = m0_ * gamma_l_;
    scale_ = 8.0 * std::sqrt(dk_) / gamma_l_ * std::sqrt(std::log(1.0 + 2.0 * radius_ * radius_ * gamma_l_ / gamma));
    offset_ = std::sqrt(2.0 * gamma * omega_ * omega_ / gamma_l_);
    sigma2_ = costs_.column_variation();
  }

  double theta(std::int64_t t) const noexcept {
    // log(d K t / delta) > 0 for every t >= 1 since d K >= 2 and delta < 1.
    return scale_ * std::sqrt(std::log(dk_ * static_cast<double>(t) / delta_)) + offset_;
  }
  double eta_eps(std::int64_t t) const noexcept {
    const double th = theta(t);
    return 4.0 * sigma2_ * th * th;
  }
  double eta_dgs(std::int64_t t) const noexcept { return 2.0 * std::sqrt(sigma2_) * theta(t); }
  double gamma_l() const noexcept { return gamma_l_; }

 private:
  bool theory_, logistic_;
  double delta_, radius_, omega_, m0_;
  CostMatrix costs_;
  double dk_ = 0.0, gamma_l_ = 0.0, scale_ = 0.0, offset_ = 0.0, sigma2_ = 0.0;
};

}  // namespace glimpse::algorithms
