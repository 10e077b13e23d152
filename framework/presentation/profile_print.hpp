// `glimpse run --profile`'s table.
#pragma once

#include <ostream>
#include <vector>

#include "round_profile.hpp"
#include "sweep_profile.hpp"

namespace glimpse {

// A table of rounds/s and the share of each phase, one line per row.
void print_profile(const std::vector<ProfileRow>& rows, std::ostream& out);

// Where the sweep's time went, thread by thread, and the serial share of its work; then the same as one line of JSON
// ("sweep profile (JSON): {...}") for scripts (benchmarks/many_core_scaling.sh models the scaling from it).
void print_sweep_profile(const SweepProfile& profile, std::ostream& out);

}  // namespace glimpse
