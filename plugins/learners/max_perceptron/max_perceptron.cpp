// max_perceptron: see glimpse/algorithms/candidate_hinge.hpp.
#include <glimpse/algorithms/candidate_hinge.hpp>

namespace {
template <class T>
using Learner = glimpse::algorithms::CandidatePerceptron<T, glimpse::algorithms::CandidateLoss::max>;
}  // namespace

GLIMPSE_PRECISION_PLUGIN(Learner)
