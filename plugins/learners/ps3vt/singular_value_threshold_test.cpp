// Singular value thresholding (ps3vt's tail term), by hand and on random matrices.
#include "singular_value_threshold.hpp"

#include <Eigen/Dense>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(SingularValueThreshold, KeepsTheHeadAndShrinksTheTailByHand) {
  // Q = diag(3, 2, 0.5) padded to 4 x 3: theta = 1, tau = 1 gives diag(3, 1, 0).
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(4, 3);
  q(0, 0) = 3, q(1, 1) = 2, q(2, 2) = 0.5;
  algorithms::TailThreshold svt;
  svt.apply(q, 1, 1.0);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(4, 3);
  expected(0, 0) = 3, expected(1, 1) = 1;
  EXPECT_LT((q - expected).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((svt.values() - Eigen::Vector3d(3, 1, 0)).cwiseAbs().maxCoeff(), 1e-12);
  // Its transpose (more columns than rows) goes through the other Gram matrix: the same result, transposed.
  Eigen::MatrixXd wide = Eigen::MatrixXd::Zero(3, 4);
  wide(0, 0) = 3, wide(1, 1) = 2, wide(2, 2) = 0.5;
  svt.apply(wide, 1, 1.0);
  EXPECT_LT((wide - expected.transpose()).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(SingularValueThreshold, LeadingShrinksTheThetaLargestAndKeepsTheRest) {
  // The authors' code's reading: Q = diag(3, 2, 0.5), theta = 2, tau = 1 gives diag(2, 1, 0.5).
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(4, 3);
  q(0, 0) = 3, q(1, 1) = 2, q(2, 2) = 0.5;
  algorithms::TailThreshold svt;
  svt.apply(q, 2, 1.0, algorithms::Thresholded::leading);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(4, 3);
  expected(0, 0) = 2, expected(1, 1) = 1, expected(2, 2) = 0.5;
  EXPECT_LT((q - expected).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(SingularValueThreshold, RandomMatricesKeepTheirSingularVectorsAndTheHead) {
  for (const auto seed : property_seeds(20)) {
    Rng rng(seed);
    const int d = 3 + static_cast<int>(rng.below(8)), k = 2 + static_cast<int>(rng.below(5));
    Eigen::MatrixXd q(d, k);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < k; ++j) q(i, j) = rng.normal();
    if (seed % 3 == 0) q.col(0) = q.col(1) * 2.0;  // rank-deficient: a zero singular value
    const int theta = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(d, k))));
    const double tau = rng.uniform();
    Eigen::JacobiSVD<Eigen::MatrixXd> reference(q, Eigen::ComputeThinU | Eigen::ComputeThinV);
    Eigen::MatrixXd result = q;
    algorithms::TailThreshold svt;
    svt.apply(result, theta, tau);
    // The closed form: same singular vectors, s_j kept for j < theta, max(0, s_j - tau) after.
    Eigen::VectorXd expected = reference.singularValues();
    for (Eigen::Index j = theta; j < expected.size(); ++j) expected[j] = std::max(0.0, expected[j] - tau);
    const Eigen::MatrixXd closed = reference.matrixU() * expected.asDiagonal() * reference.matrixV().transpose();
    EXPECT_LT((result - closed).cwiseAbs().maxCoeff(), 1e-10) << "seed " << seed;
    // Its singular values, sorted, are exactly those.
    Eigen::VectorXd got = Eigen::JacobiSVD<Eigen::MatrixXd>(result).singularValues();
    std::sort(expected.data(), expected.data() + expected.size(), std::greater<>());
    EXPECT_LT((got - expected).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((svt.values() - expected).cwiseAbs().maxCoeff(), 1e-7) << "seed " << seed;  // from the squares
    EXPECT_LT((svt.singular_values(q) - reference.singularValues()).cwiseAbs().maxCoeff(), 1e-7);
  }
}

}  // namespace
}  // namespace glimpse::testing
