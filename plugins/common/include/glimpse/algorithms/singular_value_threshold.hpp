// Generalised singular value thresholding (P3 Proposition 1, after Xu et al. 2016): the proximal step of
// tau * sum_{j > theta} lambda_j(W), which keeps the `theta` largest singular values of Q and shrinks the tail:
//   D_theta,tau(Q) = U diag(s_1, ..., s_theta, max(0, s_j - tau) for j > theta) V^T.
#pragma once

#include <Eigen/SVD>
#include <algorithm>
#include <cstdint>

namespace glimpse::algorithms {

// Replaces q by D_theta,shrink(q). `svd` (constructed for q's size) and `values` are reused between calls.
template <class Svd>
void threshold_tail(Eigen::MatrixXd& q, std::int32_t theta, double shrink, Svd& svd, Eigen::VectorXd& values) {
  svd.compute(q, Eigen::ComputeThinU | Eigen::ComputeThinV);
  values = svd.singularValues();
  for (Eigen::Index j = theta; j < values.size(); ++j) values[j] = std::max(0.0, values[j] - shrink);
  q.noalias() = svd.matrixU() * values.asDiagonal() * svd.matrixV().transpose();
}

}  // namespace glimpse::algorithms
