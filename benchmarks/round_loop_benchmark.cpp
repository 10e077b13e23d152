// Rounds per second of learners alone (predict + learn) and of the whole round loop (oracle, metrics,
// per-round trace) on the same data, so the framework's overhead over the bare learner is visible.
// Shapes: dense d=784, K=10 (MNIST-like) and sparse d=60,000 with 100 non-zeros, K=20 (20News-like).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>

#include "glimpse/glimpse.hpp"
#include "orchestrator.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"

namespace glimpse {
namespace {

const PluginRegistry& registry() {
  static const PluginRegistry loaded = [] {
    PluginRegistry r;
    r.load_directory(GLIMPSE_BENCH_PLUGIN_DIR);
    return r;
  }();
  return loaded;
}

template <class Kind>
std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& overrides = {}) {
  const LoadedPlugin& plugin = *registry().find(name);
  ParamValues values;
  for (const auto& p : plugin.spec->params) {
    const auto it = overrides.find(p.name);
    const ProblemShape shape{20000, 784, 10};  // only for defaults written as expressions of K, d, n
    values.set(p.name, *(it != overrides.end() ? resolve_param(p, it->second, &shape) : resolve_default(p, &shape)));
  }
  auto object = plugin.create(values);
  return std::unique_ptr<Kind>(dynamic_cast<Kind*>(object.release()));
}

// Labels from a random linear teacher, 10% of them replaced by uniform noise, so learners keep updating.
Dataset teacher_labelled(std::int64_t n, std::int32_t d, std::int32_t k, std::int32_t nnz, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> teacher(static_cast<std::size_t>(k) * d);
  for (auto& w : teacher) w = rng.normal();
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  const auto label_of = [&](const auto& score_of) {
    std::int32_t best = 0;
    double best_score = -1e300;
    for (std::int32_t c = 0; c < k; ++c) {
      const double s = score_of(c);
      if (s > best_score) best_score = s, best = c;
    }
    return rng.uniform() < 0.1 ? static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(k))) : best;
  };
  if (nnz >= d) {
    std::vector<Feature> values(static_cast<std::size_t>(n * d));
    for (std::int64_t i = 0; i < n; ++i) {
      Feature* row = values.data() + i * d;
      for (std::int32_t j = 0; j < d; ++j) row[j] = static_cast<Feature>(rng.uniform());
      labels[i] = label_of([&](std::int32_t c) {
        double s = 0;
        for (std::int32_t j = 0; j < d; ++j) s += teacher[c * d + j] * row[j];
        return s;
      });
    }
    return Dataset::dense(n, d, std::move(values), std::move(labels), k);
  }
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> indices;
  std::vector<Feature> values;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int32_t> chosen;
    while (static_cast<std::int32_t>(chosen.size()) < nnz) {
      const auto j = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(d)));
      if (std::find(chosen.begin(), chosen.end(), j) == chosen.end()) chosen.push_back(j);
    }
    std::sort(chosen.begin(), chosen.end());
    const auto begin = values.size();
    for (auto j : chosen) indices.push_back(j), values.push_back(static_cast<Feature>(rng.uniform()));
    labels[i] = label_of([&](std::int32_t c) {
      double s = 0;
      for (std::size_t e = 0; e < chosen.size(); ++e) s += teacher[c * d + chosen[e]] * values[begin + e];
      return s;
    });
    offsets.push_back(static_cast<std::int64_t>(values.size()));
  }
  return Dataset::sparse(d, std::move(offsets), std::move(indices), std::move(values), std::move(labels), k);
}

const Dataset& dataset(bool sparse) {
  static const Dataset dense_data = teacher_labelled(20000, 784, 10, 784, 1);
  static const Dataset sparse_data = teacher_labelled(20000, 60000, 20, 100, 2);
  return sparse ? sparse_data : dense_data;
}

// How BM_Learner runs, besides as run_rounds does: for comparison, with weights one row per class even on sparse
// rows (the layout before feature-major), or without telling the learner the next row (Learner::prefetch).
enum class LearnerVariant { as_run, class_major, no_hint };

// Bare learner: a fresh model, then predict + learn over one shuffled pass (the true label, or for bandit
// learners whether the proposal was right), with run_rounds' one-row-ahead prefetch and hint; no oracle,
// metrics or trace. One iteration = one pass.
void BM_Learner(benchmark::State& state, const std::string& learner_name, bool sparse, const std::string& precision,
                LearnerVariant variant) {
  const Dataset& data = dataset(sparse);
  std::vector<std::int64_t> order(static_cast<std::size_t>(data.size()));
  fill_stream_order(order, 0, 0, StreamOrder::shuffle, data.labels(),
                    data.num_classes());  // the order BM_RoundLoop's run_rounds uses (order_key 0, pass 0)
  auto learner = make<Learner>(learner_name, {{"precision", precision}});
  const bool full_feedback = registry().find(learner_name)->spec->accepts.contains(FeedbackKind::label);
  Prediction pred;
  pred.scores.resize(static_cast<std::size_t>(data.num_classes()));
  ProblemShape shape = data.shape();
  if (variant == LearnerVariant::class_major) shape.sparse = false;
  const bool hint = variant != LearnerVariant::no_hint;
  for (auto _ : state) {
    learner->reset(shape, 0);
    for (std::size_t position = 0; position < order.size(); ++position) {
      const auto i = order[position];
      const Instance x = data.row(i);
      const bool has_next = position + 1 < order.size();  // as run_rounds does
      const Instance next = has_next ? data.row(order[position + 1]) : Instance{};
      if (has_next) next.prefetch();
      learner->predict(x, pred);
      if (has_next && hint) learner->prefetch(next);
      if (full_feedback) {
        learner->learn(x, pred, LabelFeedback{data.label(i)});
      } else {
        learner->learn(x, pred, CorrectnessFeedback{pred.proposed == data.label(i)});
      }
    }
    benchmark::DoNotOptimize(pred.predicted);
  }
  state.SetItemsProcessed(state.iterations() * data.size());
}

// Candidate-label learners with sets of `size` labels (the true one plus size-1 fixed others, rotating), next
// to BM_Learner's exact-label runs of perceptron and pegasos on the same data.
void BM_CandidateLearner(benchmark::State& state, const std::string& learner_name, bool sparse, int size) {
  const Dataset& data = dataset(sparse);
  std::vector<std::int64_t> order(static_cast<std::size_t>(data.size()));
  fill_stream_order(order, 0, 0, StreamOrder::shuffle, data.labels(), data.num_classes());
  auto learner = make<Learner>(learner_name, {{"precision", "float"}});
  Prediction pred;
  pred.scores.resize(static_cast<std::size_t>(data.num_classes()));
  std::vector<std::int32_t> set(static_cast<std::size_t>(size));
  for (auto _ : state) {
    learner->reset(data.shape(), 0);
    for (std::size_t position = 0; position < order.size(); ++position) {
      const auto i = order[position];
      const Instance x = data.row(i);
      const bool has_next = position + 1 < order.size();
      const Instance next = has_next ? data.row(order[position + 1]) : Instance{};
      if (has_next) next.prefetch();
      learner->predict(x, pred);
      if (has_next) learner->prefetch(next);
      set[0] = data.label(i);
      for (int j = 1; j < size; ++j) set[j] = (data.label(i) + j) % data.num_classes();
      learner->learn(x, pred, CandidateSetFeedback{set});
    }
    benchmark::DoNotOptimize(pred.predicted);
  }
  state.SetItemsProcessed(state.iterations() * data.size());
}

// Whole round loop: shuffled order, `full` oracle, three metrics, per-round trace; one pass per iteration.
void BM_RoundLoop(benchmark::State& state, const std::string& learner_name, bool sparse, const std::string& precision) {
  const Dataset& data = dataset(sparse);
  auto learner = make<Learner>(learner_name, {{"precision", precision}});
  auto oracle = make<FeedbackOracle>("full");
  auto accuracy = make<Metric>("online_accuracy");
  auto windowed = make<Metric>("windowed_accuracy");
  auto mistakes = make<Metric>("mistakes");
  RoundLoopInputs inputs;
  inputs.data = &data;
  inputs.learner = learner.get();
  inputs.oracle = oracle.get();
  inputs.metrics = {accuracy.get(), windowed.get(), mistakes.get()};
  inputs.trace_rounds = state.range(0) != 0;
  for (auto _ : state) {
    RunRecord record;
    run_rounds(inputs, record);
    benchmark::DoNotOptimize(record.y);
  }
  state.SetItemsProcessed(state.iterations() * data.size());
}

// The cost of one metric: the round loop (no per-round trace) with online_accuracy alone, or with `extra`
// added; the time difference over the base is the metric's share of a round.
void BM_MetricCost(benchmark::State& state, bool sparse, const std::string& extra) {
  const Dataset& data = dataset(sparse);
  auto learner = make<Learner>("copa");
  auto oracle = make<FeedbackOracle>("full");
  auto accuracy = make<Metric>("online_accuracy");
  std::unique_ptr<Metric> added;
  if (!extra.empty()) added = make<Metric>(extra, {{"record_every", "1000"}});
  RoundLoopInputs inputs;
  inputs.data = &data;
  inputs.learner = learner.get();
  inputs.oracle = oracle.get();
  inputs.metrics = {accuracy.get()};
  if (added) inputs.metrics.push_back(added.get());
  inputs.trace_rounds = false;
  for (auto _ : state) {
    RunRecord record;
    run_rounds(inputs, record);
    benchmark::DoNotOptimize(record.rounds);
  }
  state.SetItemsProcessed(state.iterations() * data.size());
}

// One metric's observe() alone, fed the rounds of a K-class stream (a curve point every 1000 rounds): its
// time per call next to a learner's time per round is the metric's share of a round, without the noise of
// timing two whole round loops.
void BM_MetricObserve(benchmark::State& state, const std::string& metric_name, std::int32_t k) {
  const std::int64_t rounds = 20000;
  auto metric = make<Metric>(metric_name, {{"record_every", "1000"}});
  Prediction pred;
  const Feedback none = NoFeedback{};
  Rng rng(3);
  std::vector<std::int32_t> truth(static_cast<std::size_t>(rounds)), guess(truth.size());
  for (std::size_t i = 0; i < truth.size(); ++i)
    truth[i] = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(k))),
    guess[i] = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(k)));
  for (auto _ : state) {
    metric->reset({rounds, 1, k}, rounds);
    for (std::int64_t t = 1; t <= rounds; ++t) {
      pred.predicted = pred.proposed = guess[static_cast<std::size_t>(t - 1)];
      const RoundTruth round_truth{t, truth[static_cast<std::size_t>(t - 1)], {}};
      metric->observe({t, &round_truth, &pred, &none, true});
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rounds);
}

void register_all() {
  for (const std::string learner : {"avg_perceptron", "max_perceptron", "avg_pegasos", "max_pegasos"})
    for (const bool sparse : {false, true}) {
      const std::string shape = sparse ? "sparse_d60000_nnz100_K20" : "dense_d784_K10";
      benchmark::RegisterBenchmark(("candidate/" + learner + "/" + shape + "/s4").c_str(), BM_CandidateLearner, learner,
                                   sparse, 4)
          ->Unit(benchmark::kMillisecond);
    }
  for (const std::string metric : {"confusion", "online_accuracy"})
    for (const std::int32_t k : {10, 20})
      benchmark::RegisterBenchmark(("metric_observe/" + metric + "/K" + std::to_string(k)).c_str(), BM_MetricObserve,
                                   metric, k)
          ->Unit(benchmark::kMicrosecond);
  for (const bool sparse : {false, true}) {
    const std::string shape = sparse ? "sparse_d60000_nnz100_K20" : "dense_d784_K10";
    for (const std::string extra : {"", "confusion"})
      benchmark::RegisterBenchmark(("metric_cost/copa/" + shape + "/" + (extra.empty() ? "base" : extra)).c_str(),
                                   BM_MetricCost, sparse, extra)
          ->Unit(benchmark::kMillisecond);
  }
  for (const std::string learner : {"pegasos", "copa"})
    for (const bool sparse : {false, true}) {
      const std::string shape = sparse ? "sparse_d60000_nnz100_K20" : "dense_d784_K10";
      benchmark::RegisterBenchmark(("learner/" + learner + "/" + shape + "/float").c_str(), BM_Learner, learner, sparse,
                                   std::string("float"), LearnerVariant::as_run)
          ->Unit(benchmark::kMillisecond);
    }
  for (const std::string learner : {"perceptron", "cspa", "spa", "copa"}) {
    benchmark::RegisterBenchmark(("learner/" + learner + "/sparse_d60000_nnz100_K20/float/class_major").c_str(),
                                 BM_Learner, learner, true, std::string("float"), LearnerVariant::class_major)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("learner/" + learner + "/sparse_d60000_nnz100_K20/float/no_hint").c_str(), BM_Learner,
                                 learner, true, std::string("float"), LearnerVariant::no_hint)
        ->Unit(benchmark::kMillisecond);
  }
  for (const std::string learner : {"cspa", "banditron", "bpa", "confidit"})
    for (const bool sparse : {false, true}) {
      const std::string shape = sparse ? "sparse_d60000_nnz100_K20" : "dense_d784_K10";
      benchmark::RegisterBenchmark(("learner/" + learner + "/" + shape + "/float").c_str(), BM_Learner, learner, sparse,
                                   std::string("float"), LearnerVariant::as_run)
          ->Unit(benchmark::kMillisecond);
    }
  for (const std::string learner : {"perceptron", "spa"})
    for (const bool sparse : {false, true})
      for (const std::string precision : {"float", "double"}) {
        const std::string shape = sparse ? "sparse_d60000_nnz100_K20" : "dense_d784_K10";
        benchmark::RegisterBenchmark(("learner/" + learner + "/" + shape + "/" + precision).c_str(), BM_Learner,
                                     learner, sparse, precision, LearnerVariant::as_run)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("round_loop/" + learner + "/" + shape + "/" + precision).c_str(), BM_RoundLoop,
                                     learner, sparse, precision)
            ->ArgName("trace")
            ->Arg(1)
            ->Arg(0)
            ->Unit(benchmark::kMillisecond);
      }
}

}  // namespace
}  // namespace glimpse

int main(int argc, char** argv) {
  glimpse::register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
