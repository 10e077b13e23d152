// The graph Laplacian term of PS3VT (P3, section 4; README.md in this folder): an exact k-NN graph over all training points with
// Gaussian weights S_ij = exp(-||x_i - x_j||^2 / sigma^2), kept when either point is among the other's k nearest
// (symmetric), L = D - S with D = diag(row sums of S), and the d x d product P = X^T L X (rows of X are the
// points) that the learner's gradient needs, computed once per split.
//   sigma: `mean_pairwise` (default), the mean Euclidean distance over all pairs of points (P3's rule, its index
//   repaired); `mean_knn`, the mean distance from each point to its k nearest; or `mean_kth`, the mean distance
//   from each point to its k-th nearest (the authors' code, construct_laplacian_graph.m).
//   weights: `single` (default) keeps S_ij once; `mutual_doubled` doubles it when each point is among the other's
//   k nearest (the authors' code).
// Distances come from blocked products X_block X^T (Eigen GEMM), rows in parallel with TBB; O(n^2 d) time, O(n k)
// memory for the graph.
#pragma once

// GCC 12 reports a false "may be used uninitialized" inside Eigen's AVX-512 GEMM kernel when the product below is
// inlined under -march=native; the warning is about the intrinsic's own temporaries, not this code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glimpse/glimpse.hpp>
#include <string>
#include <vector>

namespace glimpse::algorithms {

enum class Bandwidth { mean_pairwise, mean_knn, mean_kth };
enum class EdgeWeights { single, mutual_doubled };

struct KnnGraph {
  Eigen::SparseMatrix<double> similarity;  // S, n x n, symmetric, zero diagonal
  Eigen::VectorXd degree;                  // D_ii
  double sigma = 0.0;
  Eigen::MatrixXd laplacian_product;  // P = X^T (D - S) X, d x d

  // L = D - S as a sparse matrix (tests, small problems).
  Eigen::SparseMatrix<double> laplacian() const {
    Eigen::SparseMatrix<double> l = -similarity;
    for (Eigen::Index i = 0; i < degree.size(); ++i) l.coeffRef(i, i) += degree[i];
    return l;
  }
};

using PointMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline KnnGraph build_knn_graph(const PointMatrix& x, std::int32_t k, Bandwidth bandwidth,
                                EdgeWeights weights = EdgeWeights::single) {
  const Eigen::Index n = x.rows();
  if (n < 2) throw Error("the k-NN graph needs at least 2 points, got " + std::to_string(n));
  const Eigen::Index neighbours = std::min<Eigen::Index>(k, n - 1);
  const Eigen::VectorXd norms = x.rowwise().squaredNorm();
  // Each row's k nearest (squared distance, index), nearest first, and its sum of distances to every other point.
  std::vector<std::pair<double, Eigen::Index>> nearest(static_cast<std::size_t>(n * neighbours));
  std::vector<double> distance_sums(static_cast<std::size_t>(n), 0.0);
  constexpr Eigen::Index block = 128;
  tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (n + block - 1) / block), [&](const auto& blocks) {
    PointMatrix squared;
    std::vector<std::pair<double, Eigen::Index>> best(static_cast<std::size_t>(neighbours));
    for (Eigen::Index b = blocks.begin(); b != blocks.end(); ++b) {
      const Eigen::Index first = b * block, rows = std::min(block, n - first);
      // ||x_i||^2 + ||x_j||^2 - 2 x_i.x_j, clamped at 0 against rounding, self-distances exactly 0.
      squared.noalias() = -2.0 * x.middleRows(first, rows) * x.transpose();
      squared.array().colwise() += norms.segment(first, rows).array();
      squared.array().rowwise() += norms.transpose().array();
      squared = squared.array().max(0.0).matrix();
      for (Eigen::Index r = 0; r < rows; ++r) squared(r, first + r) = 0.0;
      const Eigen::VectorXd sums = squared.array().sqrt().rowwise().sum();
      for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::Index i = first + r;
        // The k smallest (distance, index) pairs by insertion: ties keep the lower index, so the graph does
        // not depend on the scheduling.
        std::size_t count = 0;
        for (Eigen::Index j = 0; j < n; ++j) {
          if (j == i) continue;
          const double d2 = squared(r, j);
          if (count == best.size() && d2 >= best.back().first) continue;
          std::size_t at = count < best.size() ? count++ : best.size() - 1;
          while (at > 0 && best[at - 1].first > d2) {
            best[at] = best[at - 1];
            --at;
          }
          best[at] = {d2, j};
        }
        std::copy(best.begin(), best.end(), nearest.begin() + i * neighbours);
        distance_sums[static_cast<std::size_t>(i)] = sums[r];
      }
    }
  });

  KnnGraph graph;
  if (bandwidth == Bandwidth::mean_pairwise) {
    double total = 0.0;
    for (const double s : distance_sums) total += s;
    graph.sigma = total / (static_cast<double>(n) * static_cast<double>(n - 1));
  } else if (bandwidth == Bandwidth::mean_knn) {
    double total = 0.0;
    for (const auto& [d2, j] : nearest) total += std::sqrt(d2);
    graph.sigma = total / static_cast<double>(nearest.size());
  } else {
    double total = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) total += std::sqrt(nearest[static_cast<std::size_t>((i + 1) * neighbours - 1)].first);
    graph.sigma = total / static_cast<double>(n);
  }
  if (!(graph.sigma > 0.0)) throw Error("the k-NN graph's points all coincide (bandwidth sigma = 0)");
  const double inverse_sigma2 = 1.0 / (graph.sigma * graph.sigma);
  std::vector<Eigen::Triplet<double>> edges;
  edges.reserve(nearest.size() * 2);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index m = 0; m < neighbours; ++m) {
      const auto& [d2, j] = nearest[static_cast<std::size_t>(i * neighbours + m)];
      const double w = std::exp(-d2 * inverse_sigma2);
      edges.emplace_back(i, j, w);
      edges.emplace_back(j, i, w);
    }
  graph.similarity.resize(n, n);
  // An edge found from both ends (a mutual pair) appears twice: keep one weight (both are equal), or their sum.
  if (weights == EdgeWeights::single)
    graph.similarity.setFromTriplets(edges.begin(), edges.end(), [](double a, double) { return a; });
  else
    graph.similarity.setFromTriplets(edges.begin(), edges.end());
  graph.degree = graph.similarity * Eigen::VectorXd::Ones(n);
  const Eigen::MatrixXd sx = graph.similarity * x;
  graph.laplacian_product = x.transpose() * (graph.degree.asDiagonal() * x - sx);
  graph.laplacian_product = 0.5 * (graph.laplacian_product + graph.laplacian_product.transpose()).eval();
  return graph;
}

}  // namespace glimpse::algorithms

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
