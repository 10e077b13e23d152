// The k-NN graph Laplacian ps3vt's graph term uses.
#include "knn_graph.hpp"

#include <Eigen/Dense>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(KnnGraph, LaplacianRowsSumToZeroItIsPositiveSemidefiniteAndPIsXtLX) {
  Rng rng(3);
  const int n = 60, d = 4, k = 5;
  algorithms::PointMatrix x(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) x(i, j) = rng.normal();
  const auto graph = algorithms::build_knn_graph(x, k, algorithms::Bandwidth::mean_pairwise);
  const Eigen::MatrixXd l = graph.laplacian();
  EXPECT_LT((l * Eigen::VectorXd::Ones(n)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((l - l.transpose()).cwiseAbs().maxCoeff(), 0.0 + 1e-15);
  const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(l).eigenvalues();
  EXPECT_GT(eigenvalues.minCoeff(), -1e-10);
  const Eigen::MatrixXd dense_x = x;
  EXPECT_LT((graph.laplacian_product - dense_x.transpose() * l * dense_x).cwiseAbs().maxCoeff(), 1e-10);
  // Every point keeps its k nearest (an edge may also come from the other end): degree >= k edges.
  for (int i = 0; i < n; ++i) {
    int edges = 0, nearer = 0;
    for (Eigen::SparseMatrix<double>::InnerIterator it(graph.similarity, i); it; ++it) ++edges;
    EXPECT_GE(edges, k);
    // Brute force: the 5 nearest of i are neighbours.
    std::vector<std::pair<double, int>> all;
    for (int j = 0; j < n; ++j)
      if (j != i) all.emplace_back((x.row(i) - x.row(j)).squaredNorm(), j);
    std::sort(all.begin(), all.end());
    for (int m = 0; m < k; ++m) nearer += graph.similarity.coeff(i, all[static_cast<std::size_t>(m)].second) > 0;
    EXPECT_EQ(nearer, k);
  }
  // sigma: the mean distance over all ordered pairs.
  double total = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) total += (x.row(i) - x.row(j)).norm();
  EXPECT_NEAR(graph.sigma, total / (n * (n - 1.0)), 1e-10);
  EXPECT_NEAR(graph.similarity.coeff(0, 0), 0.0, 0.0);
}

// The authors' code's graph (construct_laplacian_graph.m), by hand. Points 0, 1, 3 and 10 on a line, k = 1:
// nearest neighbours 0->1, 1->0, 3->1 (distance 2), 10->3. sigma is the mean distance
// to the k-th (here the only) neighbour, (1 + 1 + 2 + 7) / 4 = 2.75; the mutual pair 0-1 weighs 2 exp(-1/sigma^2),
// the one-sided pairs 1-3 and 3-10 exp(-d^2/sigma^2).
TEST(KnnGraph, AuthorsCodeBandwidthAndDoubledMutualEdgesByHand) {
  algorithms::PointMatrix x(4, 1);
  x << 0.0, 1.0, 3.0, 10.0;
  const auto graph =
      algorithms::build_knn_graph(x, 1, algorithms::Bandwidth::mean_kth, algorithms::EdgeWeights::mutual_doubled);
  const double sigma2 = 2.75 * 2.75;
  EXPECT_NEAR(graph.sigma, 2.75, 1e-12);
  EXPECT_NEAR(graph.similarity.coeff(0, 1), 2.0 * std::exp(-1.0 / sigma2), 1e-12);
  EXPECT_NEAR(graph.similarity.coeff(1, 2), std::exp(-4.0 / sigma2), 1e-12);
  EXPECT_NEAR(graph.similarity.coeff(2, 3), std::exp(-49.0 / sigma2), 1e-12);
  EXPECT_NEAR(graph.similarity.coeff(0, 2), 0.0, 0.0);
  EXPECT_NEAR(graph.degree[1], 2.0 * std::exp(-1.0 / sigma2) + std::exp(-4.0 / sigma2), 1e-12);
  // With single weights the mutual pair counts once.
  const auto single = algorithms::build_knn_graph(x, 1, algorithms::Bandwidth::mean_kth);
  EXPECT_NEAR(single.similarity.coeff(0, 1), std::exp(-1.0 / sigma2), 1e-12);
}

}  // namespace
}  // namespace glimpse::testing
