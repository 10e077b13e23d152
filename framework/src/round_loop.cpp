// The round loop.
#include "round_loop.hpp"

#include <chrono>
#include <cmath>
#include <numeric>
#include <vector>

#include "glimpse/random.hpp"

namespace glimpse {

RunFailure::RunFailure(std::int64_t failed_round, const std::string& what)
    : Error(failed_round > 0 ? "round " + std::to_string(failed_round) : std::string("before the first round"), what),
      round(failed_round) {}

namespace {
// Resets the run's plugins for the dataset's shape and sizes the per-round trace arrays.
void reset_run(const RoundLoopInputs& in, const ProblemShape& shape, std::int64_t total_rounds, RunRecord& record) {
  in.learner->reset(shape, in.learner_seed);
  in.oracle->reset(shape);
  if (in.query_rule) in.query_rule->reset(shape);
  for (auto* metric : in.metrics) metric->reset(shape, total_rounds);
  if (!in.trace_rounds) return;
  record.y.allocate(total_rounds, shape.K);
  record.row.allocate(total_rounds, std::max<std::int64_t>(shape.n - 1, 0));
  record.predicted.allocate(total_rounds, shape.K);
  record.proposed.allocate(total_rounds, shape.K);
  record.correct.allocate(total_rounds, 1, false);
  record.queried.allocate(total_rounds, 1, false);
}

// A prediction the round loop cannot use (a label outside 0..K-1, a non-finite score) fails the run at round t.
[[gnu::cold, gnu::noinline]] void fail_prediction(const Prediction& prediction, std::int32_t K, std::int64_t t) {
  if (prediction.predicted < 0 || prediction.predicted >= K || prediction.proposed < 0 || prediction.proposed >= K)
    throw RunFailure(t, "the learner returned a label outside 0..K-1");
  for (std::size_t k = 0; k < prediction.scores.size(); ++k)
    if (!std::isfinite(prediction.scores[k]))
      throw RunFailure(t, "the learner's score for class " + std::to_string(k + 1) + " is " +
                              std::to_string(prediction.scores[k]) + " (did its weights diverge?)");
}
inline void check_prediction(const Prediction& prediction, std::int32_t K, std::int64_t t) {
  bool usable =
      prediction.predicted >= 0 && prediction.predicted < K && prediction.proposed >= 0 && prediction.proposed < K;
  for (const double score : prediction.scores) usable &= std::isfinite(score);
  if (!usable) [[unlikely]]
    fail_prediction(prediction, K, t);
}

// Round t's entry in the per-round trace (labels 1..K).
inline void trace_round(RunRecord& record, std::int64_t t, const RoundTruth& truth, const Prediction& prediction,
                        bool queried) {
  const std::int64_t i = t - 1;
  record.y.set(i, truth.label + 1);
  record.row.set(i, truth.row);
  record.predicted.set(i, prediction.predicted + 1);
  record.proposed.set(i, prediction.proposed + 1);
  record.correct.set(i, prediction.proposed == truth.label);
  record.queried.set(i, queried);
}

// Round t's truth: the row's label and, for synthetic streams, its class probabilities.
inline RoundTruth truth_of(const Dataset& data, std::int64_t row, std::int64_t t) {
  RoundTruth truth{t, data.label(row), {}, row};
  if (!data.class_probabilities.empty()) {
    const auto K = static_cast<std::size_t>(data.num_classes());
    truth.class_probabilities = {data.class_probabilities.data() + static_cast<std::size_t>(row) * K, K};
  }
  return truth;
}

// Whether round t is queried: the rule's decision, or the learner buying the label the rule did not ask for.
inline bool decide_query(const RoundLoopInputs& in, const Instance& x, const Prediction& prediction, std::int64_t t) {
  Rng query_rng(derive_key(in.query_key, static_cast<std::uint64_t>(t)));
  const bool rule_queries = in.query_rule->decide(x, prediction, t, query_rng);
  const bool bought = in.label_buyer && in.label_buyer->wants_label(rule_queries);
  return bought || rule_queries;
}

// Every 4096 rounds: the progress counter, and whether to go on (false: interrupted).
inline bool report_progress(const RoundLoopInputs& in, std::int64_t t, std::int64_t& reported_rounds) {
  if (in.rounds_done) *in.rounds_done += t - reported_rounds;
  reported_rounds = t;
  return !(in.interrupted && (*in.interrupted)());
}

// The round loop; with Profiled, every phase's time is charged to in.profile (a separate instantiation, so
// unprofiled runs pay nothing for it).
template <bool Profiled>
bool run_rounds_loop(const RoundLoopInputs& in, RunRecord& record) {
  const Dataset& data = *in.data;
  const ProblemShape shape = data.shape();
  const std::int64_t n = data.size();
  const std::int64_t pass_length = in.rounds_per_pass > 0 ? in.rounds_per_pass : n;
  const std::int64_t total_rounds = pass_length * in.passes;
  reset_run(in, shape, total_rounds, record);
  Prediction prediction;
  prediction.scores.assign(static_cast<std::size_t>(shape.K), 0.0);
  std::vector<std::int64_t> order(static_cast<std::size_t>(pass_length));
  RoundProfile unused;
  PhaseClock clock(Profiled ? *in.profile : unused);
  const auto lap = [&](RoundProfile::Phase phase) {
    if constexpr (Profiled) clock.lap(phase);
  };
  const auto loop_start = std::chrono::steady_clock::now();

  std::int64_t t = 0;
  std::int64_t reported_rounds = 0;
  try {
    for (std::int64_t pass = 0; pass < in.passes; ++pass) {
      fill_stream_order(order, in.order_key, pass, in.order, data.labels(), shape.K);
      for (std::size_t position = 0; position < order.size(); ++position) {
        lap(RoundProfile::data);  // charges the bookkeeping between rounds to data access
        const std::int64_t row = order[position];
        ++t;
        const Instance x = data.row(row);
        const bool has_next = position + 1 < order.size();
        const Instance next = has_next ? data.row(order[position + 1]) : Instance{};
        if (has_next) next.prefetch();
        const RoundTruth truth = truth_of(data, row, t);
        lap(RoundProfile::data);

        in.learner->predict(x, prediction);
        check_prediction(prediction, shape.K, t);
        if (has_next) in.learner->prefetch(next);
        lap(RoundProfile::predict);
        const bool queried = !in.query_rule || decide_query(in, x, prediction, t);
        if (in.query_rule) lap(RoundProfile::query);
        Feedback feedback = NoFeedback{};
        if (queried) {
          Rng oracle_rng(derive_key(in.oracle_key, static_cast<std::uint64_t>(t)));
          feedback = in.oracle->respond(x, truth, prediction, oracle_rng);
        }
        lap(RoundProfile::oracle);
        in.learner->learn(x, prediction, feedback);
        lap(RoundProfile::learn);

        const RoundRecord round{t, &truth, &prediction, &feedback, queried};
        for (auto* metric : in.metrics) metric->observe(round);
        lap(RoundProfile::metrics);
        if (in.trace_rounds) {
          trace_round(record, t, truth, prediction, queried);
          lap(RoundProfile::trace);
        }
        if (in.test && ((in.test_every > 0 && t % in.test_every == 0) || t == total_rounds)) {
          evaluate_held_out(*in.test, {}, *in.learner, in.metrics, prediction, t);
          lap(RoundProfile::test);
        }
        if ((t & 4095) == 0 && !report_progress(in, t, reported_rounds)) return false;
      }
    }
  } catch (const RunFailure&) {
    throw;
  } catch (const std::exception& e) {
    throw RunFailure(t, e.what());
  }
  if constexpr (Profiled) {
    in.profile->rounds += t;
    in.profile->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  }
  if (in.rounds_done) *in.rounds_done += t - reported_rounds;
  record.rounds = t;
  return true;
}
}  // namespace

bool run_rounds(const RoundLoopInputs& in, RunRecord& record) {
  return in.profile ? run_rounds_loop<true>(in, record) : run_rounds_loop<false>(in, record);
}

}  // namespace glimpse
