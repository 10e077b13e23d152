// `glimpse run --profile`'s table.
#include "profile_print.hpp"

#include <cstdio>
#include <numeric>

#include "summary.hpp"
#include "summary_print.hpp"
#include "text_table.hpp"

namespace glimpse {

void print_profile(const std::vector<ProfileRow>& rows, std::ostream& out) {
  std::vector<std::string> header{"dataset", "learner", "runs", "rounds/s"};
  for (const char* phase : RoundProfile::phase_names) header.emplace_back(phase);
  TextTable table(header);
  for (const auto& row : rows) {
    const RoundProfile& p = row.profile;
    std::vector<std::string> cells{row.dataset, row.learner, std::to_string(row.runs),
                                   throughput_text(rounds_per_second(p.rounds, p.seconds))};
    const double total = static_cast<double>(std::accumulate(p.ticks.begin(), p.ticks.end(), std::uint64_t{0}));
    for (const std::uint64_t ticks : p.ticks) {
      char buffer[16];
      std::snprintf(buffer, sizeof buffer, "%.1f%%", total > 0 ? 100.0 * static_cast<double>(ticks) / total : 0.0);
      cells.emplace_back(buffer);
    }
    table.add_row(std::move(cells));
  }
  out << "Where the round loop's time went (--profile; timing every phase slows rounds a little):\n";
  table.print(out);
  out << "data: row view, prefetch, truth; predict/learn: the learner; query: query rule; oracle: feedback; metrics: "
         "observe(); trace: per-round fields; test: held-out evaluation\n";
}

}  // namespace glimpse
