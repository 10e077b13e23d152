// second_order_state.hpp: the packed, lazily downdated inverse equals the direct inverse, in float and double, for
// dimensions on and off the vector width; sparse and dense rows give the same form; a pending update is applied
// by the next product exactly as if it had been applied at once.
#include <Eigen/Dense>
#include <glimpse/algorithms/second_order_state.hpp>

#include "support.hpp"

namespace glimpse::test {
namespace {

template <class T>
void expect_incremental_equals_direct(double tolerance) {
  for (const auto seed : property_seeds(20)) {
    Rng rng(seed);
    const int d = 1 + static_cast<int>(rng.below(40));  // 1..40: rows shorter and longer than one vector
    const double m0 = 0.5 + rng.uniform();
    algorithms::SecondOrderState<T> state;
    state.reset(d, m0);
    Eigen::MatrixXd m = m0 * Eigen::MatrixXd::Identity(d, d);
    for (int t = 0; t < 30; ++t) {
      std::vector<Feature> v(static_cast<std::size_t>(d));
      for (auto& x : v) x = rng.uniform() < 0.3 ? Feature{0} : static_cast<Feature>(rng.normal());
      const DenseRow row(v);
      const double r = state.quadratic(row.view());
      Eigen::VectorXd x(d);
      for (int j = 0; j < d; ++j) x[j] = v[static_cast<std::size_t>(j)];
      const Eigen::VectorXd direct_product = m.inverse() * x;
      ASSERT_NEAR(r, x.dot(direct_product), tolerance * (1 + r)) << "d = " << d << ", round " << t;
      EXPECT_LT((state.last_product().template cast<double>() - direct_product).cwiseAbs().maxCoeff(),
                tolerance * (1 + direct_product.cwiseAbs().maxCoeff()));
      if (rng.uniform() < 0.7) {  // not every x is added, as under a query rule
        state.add_last(r);
        m += x * x.transpose();
      }
    }
    const Eigen::MatrixXd direct = m.inverse();
    EXPECT_LT((state.inverse().template cast<double>() - direct).cwiseAbs().maxCoeff(),
              tolerance * direct.cwiseAbs().maxCoeff())
        << "d = " << d;
  }
}

TEST(SecondOrderState, IncrementalInverseEqualsTheDirectInverseInDouble) {
  expect_incremental_equals_direct<double>(1e-10);
}

TEST(SecondOrderState, IncrementalInverseEqualsTheDirectInverseInFloat) {
  expect_incremental_equals_direct<float>(2e-4);
}

TEST(SecondOrderState, HandComputedTwoByTwo) {
  // M = I, add x = (1, 1): M^{-1} = I - (1,1)(1,1)' / 3 = [[2/3, -1/3], [-1/3, 2/3]]; then for x = (1, 0):
  // M^{-1} x = (2/3, -1/3) and r = 2/3.
  algorithms::SecondOrderState<double> state;
  state.reset(2, 1.0);
  const DenseRow ones({1, 1}), first({1, 0});
  EXPECT_DOUBLE_EQ(state.quadratic(ones.view()), 2.0);
  state.add_last(2.0);
  EXPECT_DOUBLE_EQ(state.last_quadratic(), 2.0);  // the pre-update values stay until the next product
  EXPECT_NEAR(state.quadratic(first.view()), 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(state.last_product()[0], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(state.last_product()[1], -1.0 / 3.0, 1e-15);
  EXPECT_EQ(state.added(), 1);
}

TEST(SecondOrderState, SparseRowGivesTheFormOfItsDenseTwinAndHugeDimensionsAreRefused) {
  algorithms::SecondOrderState<double> a, b;
  a.reset(5, 1.0);
  b.reset(5, 1.0);
  const DenseRow dense({0, 2, 0, -1, 0});
  const SparseRow sparse{{1, 3}, {2, -1}, 5};
  const double ra = a.quadratic(dense.view()), rb = b.quadratic(sparse.view());
  EXPECT_DOUBLE_EQ(ra, 5.0);  // ||x||^2 / m0
  EXPECT_DOUBLE_EQ(ra, rb);
  a.add_last(ra);
  b.add_last(rb);
  EXPECT_EQ(a.quadratic(dense.view()), b.quadratic(sparse.view()));
  EXPECT_EQ(error_of([] { algorithms::SecondOrderState<double>().reset(60000, 1.0); }),
            "the query rule keeps a d x d matrix; d = 60000 needs 14400 MB (reduce d, e.g. with a projection)");
}

}  // namespace
}  // namespace glimpse::test
