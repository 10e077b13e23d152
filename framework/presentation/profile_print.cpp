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

namespace {
std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}
}  // namespace

void print_sweep_profile(const SweepProfile& profile, std::ostream& out) {
  out << "Where the sweep's time went (" << profile.runs() << " runs on " << profile.threads << " threads, "
      << seconds_text(profile.wall) << " s: planning " << seconds_text(profile.planning) << " s, workers "
      << seconds_text(profile.workers) << " s, finishing " << seconds_text(profile.finishing) << " s):\n";
  TextTable table({"thread", "runs", "setup s", "run s", "logging s", "waiting for the writer s", "idle at the end s"});
  SweepProfile::Worker all;
  for (std::size_t t = 0; t < profile.per_thread.size(); ++t) {
    const auto& w = profile.per_thread[t];
    table.add_row({std::to_string(t), std::to_string(w.runs), seconds_text(w.setup), seconds_text(w.run),
                   seconds_text(w.logging), seconds_text(w.write_wait), seconds_text(w.idle_tail)});
    all.runs += w.runs, all.setup += w.setup, all.run += w.run, all.logging += w.logging,
        all.write_wait += w.write_wait, all.idle_tail += w.idle_tail;
  }
  table.add_row({"all", std::to_string(all.runs), seconds_text(all.setup), seconds_text(all.run),
                 seconds_text(all.logging), seconds_text(all.write_wait), seconds_text(all.idle_tail)});
  table.print(out);
  const double work = profile.planning + profile.finishing + all.setup + all.run + all.logging;
  char line[300];
  std::snprintf(line, sizeof line,
                "serial work (planning, finishing): %.3f s, %.1f%% of all the work (%.3f s); the writer thread wrote "
                "for %.3f s beside the workers (%.3f s of it logging runs, which workers do themselves while it is "
                "busy)\n",
                profile.serial(), work > 0 ? 100.0 * profile.serial() / work : 0.0, work, profile.writer,
                profile.writer_logging);
  out << line << "sweep profile (JSON): {\"threads\": " << profile.threads << ", \"wall\": " << profile.wall
      << ", \"planning\": " << profile.planning << ", \"workers\": " << profile.workers
      << ", \"finishing\": " << profile.finishing << ", \"writer\": " << profile.writer
      << ", \"writer_logging\": " << profile.writer_logging << ", \"per_thread\": [";
  for (std::size_t t = 0; t < profile.per_thread.size(); ++t) {
    const auto& w = profile.per_thread[t];
    out << (t ? ", " : "") << "{\"runs\": " << w.runs << ", \"setup\": " << w.setup << ", \"run\": " << w.run
        << ", \"logging\": " << w.logging << ", \"write_wait\": " << w.write_wait << ", \"idle_tail\": " << w.idle_tail << "}";
  }
  out << "]}\n";
}

}  // namespace glimpse
