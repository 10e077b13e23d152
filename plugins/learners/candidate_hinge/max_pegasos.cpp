// max_pegasos: see candidate_hinge.hpp in this folder.
#include "candidate_hinge.hpp"

namespace {
template <class T>
using Learner = glimpse::algorithms::CandidatePegasos<T, glimpse::algorithms::CandidateLoss::max, false>;
}  // namespace

GLIMPSE_PRECISION_PLUGIN(Learner)
