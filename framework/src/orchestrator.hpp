// Runs a protocol: loads each dataset once, expands and validates every run before starting any (sweep_plan.hpp),
// runs them in parallel with TBB through the round loop (round_loop.hpp) or a batch fit (batch.hpp), and hands
// finished runs to the trace store. Including this header brings those units' declarations too.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "glimpse/dataset.hpp"
#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"
#include "prepared_dataset.hpp"
#include "protocol.hpp"
#include "round_loop.hpp"
#include "round_profile.hpp"
#include "shard.hpp"
#include "sweep_plan.hpp"
#include "sweep_profile.hpp"
#include "trace_store.hpp"

namespace glimpse {

class RunDispatcher;

// Told how a sweep advances (glimpse run's progress line), from the workers' threads. Helper processes of a shared
// sweep (MPI) tell none.
class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  // Before the first run: the runs in all, those earlier invocations finished, and the rounds this invocation's
  // runs have played so far (updated as they play).
  virtual void begin(std::int64_t total, std::int64_t already_complete,
                     const std::atomic<std::int64_t>& rounds_played) = 0;
  // A run completed and was written.
  virtual void run_completed(const RunRecord& run) = 0;
  // The workers are done (also when the sweep stops on an error): rounds_played is about to go.
  virtual void end() = 0;
};

struct SweepOptions {
  int threads = 0;                               // 0: all cores
  bool force = false;                            // discard earlier results of this output
  bool fail_fast = false;                        // a failed run stops the sweep (else it is recorded, others go on)
  Shard shard;                                   // run only this shard's runs (see shard.hpp)
  std::vector<std::string> only;                 // run only these runs (ids), e.g. to check them against a ledger
  SweepObserver* observer = nullptr;             // told of each completed run (the CLI's progress line)
  std::optional<std::filesystem::path> output;   // overrides the protocol's "output" (and a shard's default name)
  std::int64_t stop_after = -1;                  // stop (as if interrupted) after this many new runs
  const std::atomic<bool>* interrupt = nullptr;  // set by a signal handler: finish in-flight runs and stop
  std::ostream* log = nullptr;                   // where failed runs and runs left in flight are reported
  RunDispatcher* dispatcher = nullptr;           // several processes share this sweep (MPI); null: this one alone
  bool profile = false;                          // time each phase of the round loop (SweepResult::profiles)
  bool compact_traces = false;                   // deflate the per-round 0/1 columns (TraceStore::compact_rounds)
  PreparationCache* prepared_cache = nullptr;    // keeps prepared datasets between sweeps; null: none kept
};

struct SweepResult {
  std::filesystem::path output;
  std::int64_t total_runs = 0;        // of this invocation: the protocol's runs, or its shard's
  std::int64_t already_complete = 0;  // found in the output from an earlier invocation
  std::int64_t completed_now = 0;
  std::vector<std::string> failures;          // runs that failed this time: "run <id> (...): round <t>: <message>"
  std::vector<std::string> in_flight_before;  // runs an earlier, killed or crashed, sweep of this output left started
  std::int64_t rounds = 0;
  double seconds = 0.0;
  bool interrupted = false;
  std::vector<ProfileRow> profiles;  // with SweepOptions::profile: per (dataset, learner label), runs done now
  SweepProfile sweep_profile;        // where this invocation's time went, thread by thread (always measured)
};

// Shares one sweep among processes (MPI ranks). The coordinator owns the output and hands out runs one at a
// time as processes ask, so long and short runs balance; the other processes (helpers) write each finished
// run as a part beside the coordinator's output, which the coordinator assembles at the end. A process that
// dies leaves the parts it wrote; rerunning completes the rest.
class RunDispatcher {
 public:
  virtual ~RunDispatcher() = default;
  virtual bool coordinator() const = 0;
  // Coordinator: `pending` (run indices, in hand-out order) once its output is ready; helpers: {}. Returns
  // when every process may start.
  virtual void begin(std::vector<std::int64_t> pending, const std::function<bool()>& interrupted) = 0;
  // The index of the next run this process executes, or -1 when none is left. Any thread may call it.
  virtual std::int64_t next() = 0;
  // This process is done. Helpers report what they did; the coordinator waits for every helper and adds
  // their numbers to `result` (completed_now, rounds, failures).
  virtual void end(SweepResult& result) = 0;
};

SweepResult run_sweep(const Protocol& protocol, const SweepOptions& options);

}  // namespace glimpse
