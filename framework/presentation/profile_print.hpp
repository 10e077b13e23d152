// `glimpse run --profile`'s table.
#pragma once

#include <ostream>
#include <vector>

#include "round_profile.hpp"

namespace glimpse {

// A table of rounds/s and the share of each phase, one line per row.
void print_profile(const std::vector<ProfileRow>& rows, std::ostream& out);

}  // namespace glimpse
