// Eigen's symmetric eigensolver on double matrices, as the plugins use it (the sketched second-order state, the
// confusion matrix's operator norm, ps3vt's singular value thresholding). Its compute() is compiled once, in
// plugins/common/src/symmetric_eigen.cpp (the library glimpse_plugin_common_compiled, which glimpse::plugin_common
// brings along), not in every file that includes this: under the sanitizers it was 14-20 s of each such file's
// compile (docs/performance.md). The same template compiled with the same flags, so the arithmetic is the same.
#pragma once

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

namespace glimpse::algorithms {
using SymmetricEigen = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
}  // namespace glimpse::algorithms

extern template Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>&
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute<Eigen::MatrixXd>(const Eigen::EigenBase<Eigen::MatrixXd>&,
                                                                          int);
