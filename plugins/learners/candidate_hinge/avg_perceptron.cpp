// avg_perceptron: see candidate_hinge.hpp in this folder.
#include "candidate_hinge.hpp"

namespace {
template <class T>
using Learner = glimpse::algorithms::CandidatePerceptron<T, glimpse::algorithms::CandidateLoss::average>;
}  // namespace

GLIMPSE_PRECISION_PLUGIN(Learner)
