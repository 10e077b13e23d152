// glimpse run's progress line on standard error.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "orchestrator.hpp"
#include "protocol.hpp"
#include "trace_store.hpp"

namespace glimpse {

// Seconds left at the rate of the runs this invocation finished (`done` counts the `already` complete ones too);
// negative when no run has finished yet.
inline double eta_seconds(double elapsed, std::int64_t done, std::int64_t already, std::int64_t total) {
  const std::int64_t finished_here = done - already;
  if (finished_here <= 0) return -1.0;
  return elapsed * static_cast<double>(total - done) / static_cast<double>(finished_here);
}

// glimpse run's progress on standard error: runs done of total, rounds (or, for batch fits, runs) per second, ETA
// and, on the dataset of the latest finished run (runs go dataset by dataset), each learner's best mean selection
// metric so far over its grid points' finished runs. Refreshed in place on a terminal; a plain line every 30
// seconds otherwise (logs of batch jobs).
class ProgressLine final : public SweepObserver {
 public:
  explicit ProgressLine(SelectionRule selection);
  ~ProgressLine() override;
  // `already_complete` runs were finished by earlier invocations: they count as done but not towards the rate.
  void begin(std::int64_t total, std::int64_t already_complete,
             const std::atomic<std::int64_t>& rounds_played) override;
  // A finished run's final scalars, for the best-so-far.
  void run_completed(const RunRecord& run) override;
  // Stops the line and clears it from a terminal.
  void end() override;

 private:
  std::string best_so_far();
  void loop(const std::stop_token& stop);

  bool terminal_;
  std::atomic<std::int64_t> runs_done_{0};
  const std::atomic<std::int64_t>* rounds_played_ = nullptr;
  std::int64_t total_ = 0, already_complete_ = 0;
  SelectionRule selection_;
  std::mutex mutex_;
  std::string latest_dataset_;
  // dataset -> label -> grid point -> (sum, count) of the selection metric
  std::map<std::string, std::map<std::string, std::map<std::string, std::pair<double, std::int64_t>>>> points_;
  std::jthread thread_;
};

}  // namespace glimpse
