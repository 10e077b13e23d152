// pegasos: see glimpse/algorithms/candidate_hinge.hpp.
#include <glimpse/algorithms/candidate_hinge.hpp>

namespace {
template <class T>
using Learner = glimpse::algorithms::CandidatePegasos<T, glimpse::algorithms::CandidateLoss::average, true>;
}  // namespace

GLIMPSE_PRECISION_PLUGIN(Learner)
