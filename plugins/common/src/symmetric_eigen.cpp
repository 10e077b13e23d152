// The one instantiation of the symmetric eigensolver's compute() that glimpse/algorithms/symmetric_eigen.hpp
// declares.
#include <glimpse/algorithms/symmetric_eigen.hpp>

template Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>&
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute<Eigen::MatrixXd>(const Eigen::EigenBase<Eigen::MatrixXd>&, int);
