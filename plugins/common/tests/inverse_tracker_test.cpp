// inverse_tracker.hpp: the Sherman-Morrison inverse equals the direct inverse.
#include <Eigen/Dense>
#include <glimpse/algorithms/inverse_tracker.hpp>

#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(InverseTracker, IncrementalInverseEqualsTheDirectInverse) {
  for (const auto seed : property_seeds(20)) {
    Rng rng(seed);
    const int d = 3 + static_cast<int>(rng.below(8));
    const double m0 = 0.1 + rng.uniform();
    algorithms::InverseTracker tracker;
    tracker.reset(d, m0);
    Eigen::MatrixXd m = m0 * Eigen::MatrixXd::Identity(d, d);
    for (int t = 0; t < 40; ++t) {
      std::vector<Feature> v(static_cast<std::size_t>(d));
      for (auto& x : v) x = static_cast<Feature>(rng.normal());
      const DenseRow row(v);
      const double r = tracker.quadratic(row.view());
      Eigen::VectorXd x(d);
      for (int j = 0; j < d; ++j) x[j] = v[static_cast<std::size_t>(j)];
      EXPECT_NEAR(r, x.dot(m.inverse() * x), 1e-10 * (1 + r));
      tracker.add_last(r);
      m += x * x.transpose();
    }
    // Relative to the entries of M^{-1}, after 40 rank-one updates.
    const Eigen::MatrixXd direct = m.inverse();
    EXPECT_LT((tracker.inverse() - direct).cwiseAbs().maxCoeff(), 1e-10 * direct.cwiseAbs().maxCoeff());
  }
  // A sparse row gives the same form as its dense twin.
  algorithms::InverseTracker a, b;
  a.reset(5, 1.0);
  b.reset(5, 1.0);
  const DenseRow dense({0, 2, 0, -1, 0});
  const SparseRow sparse{{1, 3}, {2, -1}, 5};
  const double ra = a.quadratic(dense.view()), rb = b.quadratic(sparse.view());
  EXPECT_DOUBLE_EQ(ra, 5.0);  // ||x||^2 / m0
  EXPECT_DOUBLE_EQ(ra, rb);
  EXPECT_EQ(error_of([] { algorithms::InverseTracker().reset(60000, 1.0); }),
            "the query rule keeps a d x d matrix; d = 60000 needs 28800 MB (reduce d, e.g. with a projection)");
}

}  // namespace
}  // namespace glimpse::test
