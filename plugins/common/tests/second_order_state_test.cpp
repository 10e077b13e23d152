// second_order_state.hpp: the packed, lazily downdated inverse equals the direct inverse, in float and double, for
// dimensions on and off the vector width; sparse and dense rows give the same form; a pending update is applied
// by the next product exactly as if it had been applied at once. The sketched form is exact until it first
// lowers, keeps frequent directions' bound, and loses nothing on rows of lower rank than its own.
#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
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

TEST(SketchedSecondOrderState, ExactUntilTwiceTheRankRowsAreAdded) {
  Rng rng(4);
  const int d = 12, rank = 5;
  algorithms::SketchedSecondOrderState sketch;
  algorithms::SecondOrderState<double> exact;
  sketch.reset(d, 0.5, rank);
  exact.reset(d, 0.5);
  for (int t = 0; t < 2 * rank; ++t) {  // the 2m-th add fills the buffer; the first rotation comes with the next
    std::vector<Feature> v(d);
    for (auto& x : v) x = static_cast<Feature>(rng.normal());
    const DenseRow row(v);
    const double r = exact.quadratic(row.view());
    EXPECT_NEAR(sketch.quadratic(row.view()), r, 1e-10 * (1 + r)) << "round " << t;
    EXPECT_LT((sketch.last_product() - exact.last_product()).cwiseAbs().maxCoeff(), 1e-10);
    sketch.add_last(r);
    exact.add_last(r);
  }
  EXPECT_EQ(sketch.shrunk(), 0.0);
  EXPECT_EQ(sketch.ridge(), 0.5);
}

// Frequent directions' guarantee, robust form: with Delta the total shrink, sum x x' - B'B lies between 0 and
// Delta I, alpha = m0 + Delta / 2, and the form x' M~^{-1} x is the one of the matrix the sketch says it keeps.
TEST(SketchedSecondOrderState, KeepsTheFrequentDirectionsBoundAndItsOwnInverse) {
  for (const auto seed : property_seeds(10)) {
    Rng rng(seed);
    const int d = 8 + static_cast<int>(rng.below(20)), rank = 2 + static_cast<int>(rng.below(4));
    const double m0 = 0.5 + rng.uniform();
    algorithms::SketchedSecondOrderState sketch;
    sketch.reset(d, m0, rank);
    Eigen::MatrixXd covariance = Eigen::MatrixXd::Zero(d, d);
    for (int t = 0; t < 80; ++t) {
      Eigen::VectorXd x(d);
      std::vector<Feature> v(d);
      for (int j = 0; j < d; ++j) x[j] = v[j] = static_cast<Feature>(rng.normal() * (j < 3 ? 3.0 : 1.0));
      const DenseRow row(v);
      const double r = sketch.quadratic(row.view());
      const Eigen::MatrixXd sketched = sketch.matrix();
      EXPECT_NEAR(r, x.dot(sketched.inverse() * x), 1e-9 * (1 + r));
      sketch.add_last(r);
      covariance += x * x.transpose();
    }
    const double delta = sketch.shrunk();
    EXPECT_GT(delta, 0.0) << "80 rows of dimension " << d << " > 2 x rank " << rank << " must have been lowered";
    EXPECT_NEAR(sketch.ridge(), m0 + delta / 2, 1e-12 * (1 + delta));
    const Eigen::MatrixXd low_rank = sketch.matrix() - sketch.ridge() * Eigen::MatrixXd::Identity(d, d);
    const Eigen::VectorXd gap = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(covariance - low_rank).eigenvalues();
    const double slack = 1e-9 * covariance.norm();
    EXPECT_GE(gap.minCoeff(), -slack);
    EXPECT_LE(gap.maxCoeff(), delta + slack);
  }
}

TEST(SketchedSecondOrderState, RowsInASubspaceOfLowerRankAreKeptExactly) {
  Rng rng(9);
  const int d = 30, rank = 4;
  Eigen::MatrixXd basis = Eigen::MatrixXd::Zero(d, 2);
  for (int j = 0; j < d; ++j) basis(j, 0) = rng.normal(), basis(j, 1) = rng.normal();
  algorithms::SketchedSecondOrderState sketch;
  sketch.reset(d, 1.0, rank);
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(d, d);
  for (int t = 0; t < 50; ++t) {
    const Eigen::VectorXd x = basis * Eigen::Vector2d(rng.normal(), rng.normal());
    sketch.add_last(sketch.quadratic_dense(x));
    m += x * x.transpose();
  }
  EXPECT_LT(sketch.shrunk(), 1e-9 * m.norm());  // rank 2 < m: the m-th direction carries nothing to lower
  EXPECT_LT((sketch.matrix() - m).cwiseAbs().maxCoeff(), 1e-9 * m.norm());
}

}  // namespace
}  // namespace glimpse::testing
