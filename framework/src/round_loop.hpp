// The round loop of an online run, the order in which it visits the rows, and held-out evaluation (which batch
// runs use too).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "glimpse/dataset.hpp"
#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"
#include "protocol.hpp"
#include "round_profile.hpp"
#include "trace_store.hpp"

namespace glimpse {

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
// The order in which a run visits the rows in pass `pass`: a permutation drawn from (order_key, pass), or
// the file order when not shuffling. Runs with the same seed and dataset share the key.
// `labels` and `num_classes` serve the class-wise modes. Allocation-free for shuffle and file only.
void fill_stream_order(std::span<std::int64_t> order, std::uint64_t order_key, std::int64_t pass, StreamOrder mode,
                       std::span<const std::int32_t> labels, std::int32_t num_classes);

}  // namespace glimpse
