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
#include "run_record.hpp"
#include "stream_order.hpp"

namespace glimpse {

// One run's plugin objects, already reset-free (run_rounds resets them), and how to stream the data.
struct RoundLoopInputs {
  const Dataset* data = nullptr;
  Learner* learner = nullptr;
  LabelBuyer* label_buyer = nullptr;  // the learner, when it buys labels beyond the query rule's
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

// Held-out evaluation: the model (a Learner or a BatchLearner) predicts rows `rows` of `data` (every row when `rows`
// is empty) without learning; the metrics see each (true label, prediction), then test_done(round).
template <class Model>
void evaluate_held_out(const Dataset& data, std::span<const std::int64_t> rows, Model& model,
                       std::span<Metric* const> metrics, Prediction& prediction, std::int64_t round) {
  const auto count = rows.empty() ? data.size() : static_cast<std::int64_t>(rows.size());
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t row = rows.empty() ? i : rows[static_cast<std::size_t>(i)];
    model.evaluate(data.row(row), prediction);
    for (auto* metric : metrics) metric->observe_test(data.label(row), prediction);
  }
  for (auto* metric : metrics) metric->test_done(round);
}

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

}  // namespace glimpse
