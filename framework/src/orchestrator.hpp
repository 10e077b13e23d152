// Runs a protocol: loads each dataset once, expands and validates every run before starting any, runs
// them in parallel with TBB, and hands finished runs to the trace store.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/dataset.hpp"
#include "protocol.hpp"

namespace glimpse {

struct SweepOptions {
  int threads = 0;                              // 0: all cores
  bool force = false;                           // discard earlier results of this output
  bool progress = true;                         // progress line on stderr (only when it is a terminal)
  std::optional<std::filesystem::path> output;  // overrides the protocol's "output"
  std::int64_t stop_after = -1;                 // stop (as if interrupted) after this many new runs
  const std::atomic<bool>* interrupt = nullptr; // set by a signal handler: finish in-flight runs and stop
};

struct SweepResult {
  std::filesystem::path output;
  std::int64_t total_runs = 0;
  std::int64_t already_complete = 0;  // found in the output from an earlier invocation
  std::int64_t completed_now = 0;
  std::int64_t rounds = 0;
  double seconds = 0.0;
  bool interrupted = false;
};

// The output file a protocol writes to when no --output is given.
std::filesystem::path default_output(const Protocol& protocol);

// Loads (and transforms) the protocol's datasets, in order.
std::vector<std::shared_ptr<const Dataset>> load_datasets(const Protocol& protocol);

SweepResult run_sweep(const Protocol& protocol, const SweepOptions& options);

}  // namespace glimpse
