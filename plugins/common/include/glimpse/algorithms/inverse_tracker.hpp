// M^{-1} for M = m0 I + sum of the queried x x^T, kept by Sherman-Morrison in O(d^2) per added x (never an
// O(d^3) inverse), and the quadratic form r = x^T M^{-1} x the selective-sampling query rules test
//. Dense d x d storage; allocation-free after reset().
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <glimpse/glimpse.hpp>
#include <string>

namespace glimpse::algorithms {

class InverseTracker {
 public:
  // The d x d matrix must fit: refuse dimensions whose matrix would exceed `max_bytes`.
  void reset(std::int32_t dim, double initial_scale, const char* owner = "the query rule", double max_bytes = 4.0e9) {
    const double bytes = 8.0 * static_cast<double>(dim) * static_cast<double>(dim);
    if (bytes > max_bytes)
      throw Error(std::string(owner) + " keeps a d x d matrix; d = " + std::to_string(dim) + " needs " +
                  std::to_string(static_cast<long long>(bytes / 1e6)) + " MB (reduce d, e.g. with a projection)");
    inverse_.setIdentity(dim, dim);
    inverse_ /= initial_scale;
    dense_.setZero(dim);
    product_.setZero(dim);
    added_ = 0;
  }

  // r = x^T M^{-1} x; also leaves M^{-1} x in product_ for a following add().
  double quadratic(const Instance& x) {
    x.to_dense(dense_);
    return quadratic_of_dense();
  }
  template <class X>
  double quadratic_dense(const X& x) {
    dense_ = x;
    return quadratic_of_dense();
  }

  // M <- M + x x^T, i.e. M^{-1} <- M^{-1} - (M^{-1} x)(M^{-1} x)^T / (1 + r). Call right after quadratic(x).
  void add_last(double r) {
    inverse_.template selfadjointView<Eigen::Lower>().rankUpdate(product_, -1.0 / (1.0 + r));
    ++added_;
  }

  // M^{-1} x and x^T M^{-1} x for the x of the last quadratic() call (before any add_last()).
  const Eigen::VectorXd& last_product() const noexcept { return product_; }
  double last_quadratic() const noexcept { return quadratic_; }
  // The full symmetric inverse (for tests).
  Eigen::MatrixXd inverse() const { return inverse_.template selfadjointView<Eigen::Lower>(); }
  std::int64_t added() const noexcept { return added_; }

 private:
  double quadratic_of_dense() {
    product_.noalias() = inverse_.template selfadjointView<Eigen::Lower>() * dense_;
    return quadratic_ = dense_.dot(product_);
  }

  Eigen::MatrixXd inverse_;  // only the lower triangle is kept up to date
  Eigen::VectorXd dense_, product_;
  double quadratic_ = 0.0;
  std::int64_t added_ = 0;
};

}  // namespace glimpse::algorithms

namespace glimpse::algorithms {

// The query rules that test the uncertainty r_t = x^T M_t^{-1} x of x among the queried instances (BBQ,
// BBQ_eps, DGS): this base keeps M^{-1}, asks the rule's condition, and adds x to M when it queries.
class UncertaintyRule : public QueryRule {
 public:
  static ParamSpec m0_param() {
    return ParamSpec::real("m0", "1", "M_1 = m0 I (gamma / gamma_l; 1 with the default gamma)").above(0);
  }
  explicit UncertaintyRule(const ParamValues& params) : m0_(params.real("m0")) {}
  void reset(const ProblemShape& shape) override { inverse_.reset(shape.d, m0_); }
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
  InverseTracker inverse_;
};

}  // namespace glimpse::algorithms
