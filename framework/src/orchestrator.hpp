// Runs a protocol: loads each dataset once, expands and validates every run before starting any, runs
// them in parallel with TBB, and hands finished runs to the trace store.
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
#include "protocol.hpp"
#include "round_profile.hpp"
#include "shard.hpp"
#include "trace_store.hpp"

namespace glimpse {

class RunDispatcher;

struct SweepOptions {
  int threads = 0;                               // 0: all cores
  bool force = false;                            // discard earlier results of this output
  bool fail_fast = false;                        // a failed run stops the sweep (else it is recorded, others go on)
  Shard shard;                                   // run only this shard's runs (see shard.hpp)
  bool progress = true;                          // progress line on stderr (only when it is a terminal)
  std::optional<std::filesystem::path> output;   // overrides the protocol's "output" (and a shard's default name)
  std::int64_t stop_after = -1;                  // stop (as if interrupted) after this many new runs
  const std::atomic<bool>* interrupt = nullptr;  // set by a signal handler: finish in-flight runs and stop
  std::ostream* log = nullptr;                   // where failed runs and runs left in flight are reported
  RunDispatcher* dispatcher = nullptr;           // several processes share this sweep (MPI); null: this one alone
  bool profile = false;                          // time each phase of the round loop (SweepResult::profiles)
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
};

// One run's plugin objects, already reset-free (run_rounds resets them), and how to stream the data.
struct RoundLoopInputs {
  const Dataset* data = nullptr;
  Learner* learner = nullptr;
  FeedbackOracle* oracle = nullptr;
  QueryRule* query_rule = nullptr;  // null: every round is queried
  std::vector<Metric*> metrics;
  std::uint64_t learner_seed = 0;  // keys of the run's random streams
  std::uint64_t order_key = 0, oracle_key = 0, query_key = 0;
  std::int64_t passes = 1;
  std::int64_t rounds_per_pass = 0;  // 0: the dataset's rows
  StreamOrder order = StreamOrder::shuffle;
  bool trace_rounds = true;
  // Held-out evaluation: after every `test_every` rounds (0: none before the end) and after the last round,
  // the learner predicts every row of `test` and the metrics see the results.
  const Dataset* test = nullptr;
  std::int64_t test_every = 0;
  std::atomic<std::int64_t>* rounds_done = nullptr;  // progress counter, updated every 4096 rounds
  const std::function<bool()>* interrupted = nullptr;
  RoundProfile* profile = nullptr;  // non-null: time every phase of every round into it (glimpse run --profile)
};

// Held-out evaluation: the learner predicts rows `rows` of `data` (every row when `rows` is empty) without
// learning; the metrics see each (true label, prediction), then test_done(round).
void evaluate_held_out(const Dataset& data, std::span<const std::int64_t> rows, Learner& learner,
                       std::span<Metric* const> metrics, Prediction& prediction, std::int64_t round);

// Something a run's plugins did wrong (threw, returned a label outside 0..K-1 or a non-finite score): the run
// fails with this message; `round` is where (0: outside the round loop).
class RunFailure : public Error {
 public:
  RunFailure(std::int64_t round, const std::string& what);
  std::int64_t round;
};

// Resets the objects and runs every round; fills the record's per-round fields and `rounds`.
// Returns false when `interrupted` said stop (the record is then incomplete). Throws RunFailure.
bool run_rounds(const RoundLoopInputs& inputs, RunRecord& record);

// The output file a protocol writes to when no --output is given.
std::filesystem::path default_output(const Protocol& protocol);

// A protocol dataset, loaded and put through its seed-independent transforms once. When some transform is
// per seed, `materialize(seed)` makes the copy the runs with that seed see (the orchestrator builds each such
// copy on first use, shares it among that seed's runs and frees it after the last one).
struct PreparedDataset {
  std::shared_ptr<const Dataset> shared;
  std::vector<std::shared_ptr<const Transform>> seed_transforms;  // from the first per-seed transform on
  std::size_t first_seed_transform = 0;                           // its position in the protocol's list
  std::string name, where;
  StreamOrder order = StreamOrder::shuffle;
  std::shared_ptr<const PreparedDataset> test;  // the held-out part, when the protocol names one
  // Batch protocols fitting transforms on training rows: how each seed's split is drawn (its rule and stream
  // name), so that a transform with fitted statistics learns only from that seed's training part.
  std::optional<BatchSplit> fit_split;
  std::string split_name;

  bool per_seed() const noexcept { return !seed_transforms.empty(); }
  std::shared_ptr<const Dataset> materialize(std::uint64_t seed) const;
};
std::vector<PreparedDataset> prepare_datasets(const Protocol& protocol);

// A batch protocol's split rule for one dataset (its own labelled fraction, if it gives one) and the key of its
// stream for a seed: the same split for every run, and for the transforms fitted on its training part.
BatchSplit split_rule(const Protocol& protocol, const DatasetUse& use);
std::uint64_t split_key(std::uint64_t seed, const std::string& split_name);

// The order in which a run visits the rows in pass `pass`: a permutation drawn from (order_key, pass), or
// the file order when not shuffling. Runs with the same seed and dataset share the key.
// `labels` and `num_classes` serve the class-wise modes. Allocation-free for shuffle and file only.
void fill_stream_order(std::span<std::int64_t> order, std::uint64_t order_key, std::int64_t pass, StreamOrder mode,
                       std::span<const std::int32_t> labels, std::int32_t num_classes);

// A protocol's run list (datasets are loaded to resolve parameters) with each run's expected cost,
// passes x n x K x d, which sharding balances.
struct RunList {
  std::vector<RunSpec> runs;
  std::vector<double> costs;
};
RunList list_runs(const Protocol& protocol);

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

// "run 000017 (learner 'x', dataset 'y', seed 3, params {...})", as messages name runs.
std::string describe_run(const Protocol& protocol, const RunSpec& run);

// The runs of `protocol` that `shard` holds, in index order (all of them for the whole protocol).
std::vector<const RunSpec*> shard_runs(const RunList& list, const Shard& shard);

SweepResult run_sweep(const Protocol& protocol, const SweepOptions& options);

}  // namespace glimpse
