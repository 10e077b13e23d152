// The orchestrator and the round loop.
#include "orchestrator.hpp"

#include <sys/resource.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include "batch.hpp"
#include "dataset_cache.hpp"
#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"
#include "glimpse/random.hpp"
#include "summary.hpp"
#include "trace_store.hpp"

namespace glimpse {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

template <class Kind>
std::unique_ptr<Kind> create_as(const PluginUse& use, const ParamValues& params) {
  std::unique_ptr<PluginObject> object = use.plugin->create(params);
  auto* typed = dynamic_cast<Kind*>(object.get());
  if (!typed)
    throw Error(use.where, "plugin '" + use.name() + "' (" + use.plugin->file.string() +
                               ") created an object that is not a " +
                               std::string(plugin_kind_name(use.plugin->spec->kind)));
  object.release();
  return std::unique_ptr<Kind>(typed);
}

// Everything about a dataset that runs share: the data and the resolved parameters of the plugins that
// are the same for every run on it.
struct DatasetPlan {
  PreparedDataset data;
  ProblemShape shape;
  std::vector<ParamValues> oracle_params;  // per learner (each may have its own oracle)
  std::vector<ParamValues> metric_params;
  // The first seed's dataset (and test part) as its runs see them, made while planning to learn the shape;
  // kept for those runs when the datasets have per-seed transforms.
  std::shared_ptr<const Dataset> first_seed, first_seed_test;
};

// Stream keys, by meaning (STYLE.md section 6): data order and oracle/query draws depend on (seed,
// dataset) only, so runs sharing them are paired; the learner's own stream adds learner and parameters.
struct StreamKeys {
  std::uint64_t order, oracle, query, learner;
  static std::uint64_t dataset_key(std::uint64_t seed, const std::string& dataset) {
    return derive_key(derive_key(mix64(seed), hash_name("glimpse.dataset")), hash_name(dataset));
  }
  static std::uint64_t order_key(std::uint64_t seed, const std::string& dataset) {
    return derive_key(dataset_key(seed, dataset), hash_name("order"));
  }
  StreamKeys(std::uint64_t seed, const std::string& dataset, const std::string& learner_name,
             const std::string& params) {
    const std::uint64_t data = dataset_key(seed, dataset);
    order = order_key(seed, dataset);
    oracle = derive_key(data, hash_name("oracle"));
    query = derive_key(data, hash_name("query_rule"));
    learner = derive_key(derive_key(data, hash_name(learner_name)), hash_name(params));
  }
};

std::string metric_output_name(const PluginUse& metric, const std::string& suffix) {
  return suffix.empty() ? metric.output_name : metric.output_name + "_" + suffix;
}

// Moves a metric's (or a learner's) results into the run record under the names `name_of(suffix)` gives.
template <class NameOf>
void append_results(RunRecord& record, MetricResults&& out, const NameOf& name_of) {
  for (auto& scalar : out.scalars) record.scalars.emplace_back(name_of(scalar.suffix), scalar.value);
  for (auto& curve : out.curves)
    record.curves.push_back({name_of(curve.suffix), std::move(curve.rounds), std::move(curve.values)});
  for (auto& matrix : out.matrices)
    record.matrices.push_back({name_of(matrix.suffix), matrix.rows, matrix.cols, std::move(matrix.values)});
}

// The sweep's progress on standard error: runs done of total, rounds per second, ETA and, on the dataset of
// the latest finished run (runs go dataset by dataset), each learner's best mean selection metric so far over
// its grid points' finished runs. Refreshed in place on a terminal; a
// plain line every 30 seconds otherwise (logs of batch jobs).
class Progress {
 public:
  Progress(bool enabled, std::int64_t total, SelectionRule selection)
      : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) != 0), total_(total), selection_(std::move(selection)) {
    if (enabled_) thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
  }
  ~Progress() {
    if (enabled_) {
      thread_.request_stop();
      thread_.join();
      if (terminal_) std::fprintf(stderr, "\r\033[K");
    }
  }
  std::atomic<std::int64_t> runs_done{0};
  std::atomic<std::int64_t> rounds_done{0};

  // A finished run's final scalars, for the best-so-far.
  void record(const RunRecord& run) {
    if (!enabled_) return;
    for (const auto& [name, value] : run.scalars)
      if (name == selection_.metric && std::isfinite(value)) {
        std::lock_guard lock(mutex_);
        latest_dataset_ = run.dataset;
        auto& point = points_[run.dataset][run.label][run.params_json + run.query_rule + run.query_rule_params];
        point.first += value;
        ++point.second;
      }
  }

 private:
  std::string best_so_far() {
    std::lock_guard lock(mutex_);
    std::string text;
    for (const auto& [label, points] : points_[latest_dataset_]) {
      double best = selection_.maximize ? -HUGE_VAL : HUGE_VAL;
      for (const auto& [point, sum_count] : points) {
        const double mean = sum_count.first / static_cast<double>(sum_count.second);
        best = selection_.maximize ? std::max(best, mean) : std::min(best, mean);
      }
      text += " " + label + " " + format_metric(selection_.metric, best, false);
    }
    return text.empty() ? text : " | " + latest_dataset_ + " best " + selection_.metric + ":" + text;
  }
  void loop(const std::stop_token& stop) {
    const auto start = Clock::now();
    auto last_line = start;
    while (!stop.stop_requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      const auto now = Clock::now();
      if (!terminal_ && now - last_line < std::chrono::seconds(30)) continue;
      last_line = now;
      const double elapsed = std::chrono::duration<double>(now - start).count();
      const auto done = runs_done.load();
      const double rate = static_cast<double>(rounds_done.load()) / std::max(elapsed, 1e-9);
      const double eta = done > 0 ? elapsed * static_cast<double>(total_ - done) / static_cast<double>(done) : 0.0;
      std::fprintf(stderr, "%sruns %lld/%lld | %.3g rounds/s | ETA %s%s%s", terminal_ ? "\r\033[K" : "",
                   static_cast<long long>(done), static_cast<long long>(total_), rate,
                   done > 0 ? (std::to_string(static_cast<long long>(eta)) + "s").c_str() : "?", best_so_far().c_str(),
                   terminal_ ? "" : "\n");
      std::fflush(stderr);
    }
  }
  bool enabled_, terminal_;
  std::int64_t total_;
  SelectionRule selection_;
  std::mutex mutex_;
  std::string latest_dataset_;
  // dataset -> label -> grid point -> (sum, count) of the selection metric
  std::map<std::string, std::map<std::string, std::map<std::string, std::pair<double, std::int64_t>>>> points_;
  std::jthread thread_;
};

}  // namespace

void evaluate_held_out(const Dataset& data, std::span<const std::int64_t> rows, Learner& learner,
                       std::span<Metric* const> metrics, Prediction& prediction, std::int64_t round) {
  const auto count = rows.empty() ? data.size() : static_cast<std::int64_t>(rows.size());
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t row = rows.empty() ? i : rows[static_cast<std::size_t>(i)];
    learner.evaluate(data.row(row), prediction);
    for (auto* metric : metrics) metric->observe_test(data.label(row), prediction);
  }
  for (auto* metric : metrics) metric->test_done(round);
}

namespace {
// The process's peak resident set so far, in MB (Linux reports ru_maxrss in KiB).
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}
}  // namespace

RunFailure::RunFailure(std::int64_t failed_round, const std::string& what)
    : Error(failed_round > 0 ? "round " + std::to_string(failed_round) : std::string("before the first round"), what),
      round(failed_round) {}

namespace {
// The round loop; with Profiled, every phase's time is charged to in.profile (a separate instantiation, so
// unprofiled runs pay nothing for it).
template <bool Profiled>
bool run_rounds_loop(const RoundLoopInputs& in, RunRecord& record) {
  const Dataset& data = *in.data;
  const ProblemShape shape = data.shape();
  const std::int64_t n = data.size();
  const std::int64_t pass_length = in.rounds_per_pass > 0 ? in.rounds_per_pass : n;
  const std::int64_t total_rounds = pass_length * in.passes;
  in.learner->reset(shape, in.learner_seed);
  in.oracle->reset(shape);
  if (in.query_rule) in.query_rule->reset(shape);
  for (auto* metric : in.metrics) metric->reset(shape, total_rounds);
  if (in.trace_rounds) {
    record.y.resize(static_cast<std::size_t>(total_rounds));
    record.row.resize(record.y.size());
    record.predicted.resize(record.y.size());
    record.proposed.resize(record.y.size());
    record.correct.resize(record.y.size());
    record.queried.resize(record.y.size());
  }
  Prediction prediction;
  prediction.scores.assign(static_cast<std::size_t>(shape.K), 0.0);
  std::vector<std::int64_t> order(static_cast<std::size_t>(pass_length));
  const bool has_probabilities = !data.class_probabilities.empty();
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
        RoundTruth truth{t, data.label(row), {}, row};
        if (has_probabilities)
          truth.class_probabilities = {data.class_probabilities.data() + row * shape.K,
                                       static_cast<std::size_t>(shape.K)};
        lap(RoundProfile::data);

        in.learner->predict(x, prediction);
        if (prediction.predicted < 0 || prediction.predicted >= shape.K || prediction.proposed < 0 ||
            prediction.proposed >= shape.K)
          throw RunFailure(t, "the learner returned a label outside 0..K-1");
        for (std::size_t k = 0; k < prediction.scores.size(); ++k)
          if (!std::isfinite(prediction.scores[k]))
            throw RunFailure(t, "the learner's score for class " + std::to_string(k + 1) + " is " +
                                    std::to_string(prediction.scores[k]) + " (did its weights diverge?)");
        if (has_next) in.learner->prefetch(next);
        lap(RoundProfile::predict);
        bool queried = true;
        if (in.query_rule) {
          Rng query_rng(derive_key(in.query_key, static_cast<std::uint64_t>(t)));
          const bool rule_queries = in.query_rule->decide(x, prediction, t, query_rng);
          queried = in.learner->wants_label(rule_queries) || rule_queries;
          lap(RoundProfile::query);
        }
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
          const auto i = static_cast<std::size_t>(t - 1);
          record.y[i] = truth.label + 1;
          record.row[i] = row;
          record.predicted[i] = prediction.predicted + 1;
          record.proposed[i] = prediction.proposed + 1;
          record.correct[i] = prediction.proposed == truth.label;
          record.queried[i] = queried;
          lap(RoundProfile::trace);
        }
        if (in.test && ((in.test_every > 0 && t % in.test_every == 0) || t == total_rounds)) {
          evaluate_held_out(*in.test, {}, *in.learner, in.metrics, prediction, t);
          lap(RoundProfile::test);
        }
        if ((t & 4095) == 0) {
          if (in.rounds_done) *in.rounds_done += t - reported_rounds;
          reported_rounds = t;
          if (in.interrupted && (*in.interrupted)()) return false;
        }
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

fs::path default_output(const Protocol& protocol) {
  if (!protocol.output.empty()) return protocol.output;
  return fs::path("runs") / ((protocol.name.empty() ? std::string("protocol") : protocol.name) + ".h5");
}

namespace {
// Prints what the dataset's reader and transforms had to say about it (Dataset::notes), from note `first` on: a
// per-seed copy repeats the shared dataset's notes, printed when that was prepared. The notes stay in the dataset,
// and every run records them in its trace.
void print_notes(const Dataset& data, const std::string& where, std::size_t first = 0) {
  for (std::size_t i = first; i < data.notes.size(); ++i) {
    const std::string line = "glimpse: note: " + where + ": " + data.notes[i] + "\n";
    std::cerr << line << std::flush;  // one write per line: seeds are prepared on several threads
  }
}
}  // namespace

std::shared_ptr<const Dataset> PreparedDataset::materialize(std::uint64_t seed) const {
  if (!per_seed()) return shared;
  Dataset copy = *shared;
  const std::size_t shared_notes = copy.notes.size();
  std::vector<std::int64_t> first_pass;
  for (std::size_t i = 0; i < seed_transforms.size(); ++i) {
    // The first pass's order over the rows as they are now (an earlier transform may have dropped some); it
    // is the runs' own order when no later transform changes the rows.
    first_pass.resize(static_cast<std::size_t>(copy.size()));
    fill_stream_order(first_pass, StreamKeys::order_key(seed, name), 0, order, copy.labels(), copy.num_classes());
    const std::uint64_t key =
        derive_key(derive_key(StreamKeys::dataset_key(seed, name), hash_name("transform")), first_seed_transform + i);
    std::vector<std::int64_t> fit_rows;
    if (fit_split && seed_transforms[i]->fits_statistics()) {
      // The split the runs will draw (it depends on the labels only, which transforms keep).
      const BatchSplitRows split = make_batch_split(copy, *fit_split, split_key(seed, split_name));
      if (fit_split->fit_transforms_on == BatchSplit::FitRows::labelled) {
        for (const std::int64_t labelled : split.labelled)
          fit_rows.push_back(split.train[static_cast<std::size_t>(labelled)]);
      } else {
        fit_rows = split.train;
      }
    }
    seed_transforms[i]->apply(copy, {seed, key, first_pass, fit_rows});
  }
  copy.validate(where + ", seed " + std::to_string(seed));
  print_notes(copy, where + ", seed " + std::to_string(seed), shared_notes);
  return std::make_shared<const Dataset>(std::move(copy));
}

namespace {

// Something the runs sharing a key need (a per-seed dataset copy, a batch split): built on first use (one builder
// per key; other keys build concurrently), shared by those runs, freed once the last run expected for it is done.
// expect() is called for every pending run before any starts.
template <class Key, class T>
class SharedByRuns {
 public:
  void expect(const Key& key) { ++find(key).remaining; }
  template <class Build>
  std::shared_ptr<T> acquire(const Key& key, const Build& build) {
    Entry& entry = find(key);
    std::lock_guard lock(entry.mutex);
    if (!entry.value) entry.value = build();
    return entry.value;
  }
  void release(const Key& key) {
    Entry& entry = find(key);
    std::lock_guard lock(entry.mutex);
    if (--entry.remaining == 0) entry.value.reset();
  }
  void keep(const Key& key, std::shared_ptr<T> value) { find(key).value = std::move(value); }

 private:
  struct Entry {
    std::mutex mutex;
    std::shared_ptr<T> value;
    std::int64_t remaining = 0;
  };
  Entry& find(const Key& key) {
    std::lock_guard lock(mutex_);
    return entries_[key];  // std::map: entries never move
  }
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
};

// Per-seed dataset copies, keyed by the prepared dataset they come from (its shared base, whose address never
// changes), so training and test parts need no numbering of their own. Datasets without per-seed transforms
// are shared as they are.
class SeedCopies {
 public:
  void expect(const PreparedDataset& prepared, std::uint64_t seed) {
    if (prepared.per_seed()) copies_.expect(key(prepared, seed));
  }
  std::shared_ptr<const Dataset> acquire(const PreparedDataset& prepared, std::uint64_t seed) {
    if (!prepared.per_seed()) return prepared.shared;
    return copies_.acquire(key(prepared, seed), [&] { return prepared.materialize(seed); });
  }
  void release(const PreparedDataset& prepared, std::uint64_t seed) {
    if (prepared.per_seed()) copies_.release(key(prepared, seed));
  }
  void keep(const PreparedDataset& prepared, std::uint64_t seed, std::shared_ptr<const Dataset> data) {
    if (prepared.per_seed()) copies_.keep(key(prepared, seed), std::move(data));
  }

 private:
  using Key = std::pair<const Dataset*, std::uint64_t>;
  static Key key(const PreparedDataset& prepared, std::uint64_t seed) { return {prepared.shared.get(), seed}; }
  SharedByRuns<Key, const Dataset> copies_;
};

}  // namespace

void fill_stream_order(std::span<std::int64_t> order, std::uint64_t order_key, std::int64_t pass, StreamOrder mode,
                       std::span<const std::int32_t> labels, std::int32_t num_classes) {
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (mode == StreamOrder::file || order.empty()) return;
  Rng rng(derive_key(order_key, static_cast<std::uint64_t>(pass)));
  if (mode == StreamOrder::with_replacement) {  // `order` may be longer or shorter than the rows
    for (auto& slot : order) slot = static_cast<std::int64_t>(rng.below(labels.size()));
    return;
  }
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  if (mode == StreamOrder::shuffle) return;
  // Class-wise modes: each class's rows in the shuffled order above, then arranged by class.
  std::vector<std::vector<std::int64_t>> by_class(static_cast<std::size_t>(num_classes));
  for (const std::int64_t row : order)
    by_class[static_cast<std::size_t>(labels[static_cast<std::size_t>(row)])].push_back(row);
  std::size_t position = 0;
  if (mode == StreamOrder::by_class) {
    for (const auto& rows : by_class)
      for (const std::int64_t row : rows) order[position++] = row;
  } else if (mode == StreamOrder::interleaved) {
    for (std::size_t depth = 0; position < order.size(); ++depth)
      for (const auto& rows : by_class)
        if (depth < rows.size()) order[position++] = rows[depth];
  } else {  // class_balanced
    std::vector<std::size_t> present;
    for (std::size_t c = 0; c < by_class.size(); ++c)
      if (!by_class[c].empty()) present.push_back(c);
    for (auto& slot : order) {
      const auto& rows = by_class[present[rng.below(present.size())]];
      slot = rows[rng.below(rows.size())];
    }
  }
}

namespace {
// Loads one dataset entry and applies its transforms up to the first per-seed one. `stream_name` keys its
// per-seed transforms: a test part uses its training part's name, so a split drawn in both is complementary.
PreparedDataset prepare_one(const DatasetUse& use, StreamOrder order, const std::string& stream_name,
                            const std::optional<BatchSplit>& fit_split = std::nullopt) {
  {
    const std::string where = use.where + " (dataset '" + use.name + "')";
    Dataset data;
    if (use.cached) {
      data = load_cached_dataset(use.cached_name, use.where);
    } else {
      auto source = create_as<DataSource>(use.source, use.source.resolve(0, nullptr));
      try {
        data = source->load();
      } catch (const Error& e) {
        // Readers already name the file and line; add which dataset of the protocol it was.
        throw Error(use.where + " (source '" + use.source.name() + "')", e.what());
      }
    }
    const ProblemShape raw_shape = data.shape();
    std::vector<std::unique_ptr<Transform>> transforms;
    for (const auto& transform : use.transforms)
      transforms.push_back(create_as<Transform>(transform, transform.resolve(0, &raw_shape)));
    // Transforms before the first per-seed one run once; from there on, once per seed on a copy. Fitted on a
    // split's training part, a transform with fitted statistics is per seed too (each seed draws its own split).
    const auto seed_dependent = [&](const Transform& t) { return t.per_seed() || (fit_split && t.fits_statistics()); };
    std::size_t first_per_seed = 0;
    while (first_per_seed < transforms.size() && !seed_dependent(*transforms[first_per_seed]))
      transforms[first_per_seed++]->apply(data, {});
    PreparedDataset prepared;
    prepared.name = stream_name;
    prepared.where = where;
    prepared.order = order;
    prepared.fit_split = fit_split;
    prepared.split_name = use.split_name();
    prepared.first_seed_transform = first_per_seed;
    for (std::size_t i = first_per_seed; i < transforms.size(); ++i)
      prepared.seed_transforms.push_back(std::move(transforms[i]));
    if (!prepared.per_seed()) data.validate(where);
    print_notes(data, where);
    prepared.shared = std::make_shared<const Dataset>(std::move(data));
    return prepared;
  }
}
}  // namespace

std::vector<PreparedDataset> prepare_datasets(const Protocol& protocol) {
  std::vector<PreparedDataset> result;
  for (const auto& use : protocol.datasets) {
    std::optional<BatchSplit> fit_split;
    if (protocol.batch() && protocol.split.fit_transforms_on != BatchSplit::FitRows::all)
      fit_split = split_rule(protocol, use);
    PreparedDataset prepared = prepare_one(use, protocol.order, use.name, fit_split);
    if (!use.test.empty())
      prepared.test = std::make_shared<const PreparedDataset>(prepare_one(use.test.front(), protocol.order, use.name));
    result.push_back(std::move(prepared));
  }
  return result;
}

BatchSplit split_rule(const Protocol& protocol, const DatasetUse& use) {
  BatchSplit rule = protocol.split;
  if (use.labelled) rule.labelled = *use.labelled;
  return rule;
}

std::uint64_t split_key(std::uint64_t seed, const std::string& split_name) {
  return derive_key(StreamKeys::dataset_key(seed, split_name), hash_name("split"));
}

namespace {
struct SweepPlan {
  std::vector<DatasetPlan> datasets;
  RunList list;
};

// Loads every dataset once and resolves every value, so that nothing is left to fail before runs start.
SweepPlan plan_sweep(const Protocol& protocol) {
  SweepPlan sweep;
  std::vector<ProblemShape> shapes;
  for (auto& data : prepare_datasets(protocol)) {
    DatasetPlan plan;
    // The shape after every transform; a per-seed copy made for it is kept for its runs.
    plan.first_seed = data.materialize(protocol.seeds.front());
    const Dataset& first = *plan.first_seed;
    plan.shape = first.shape();
    if (data.test) {
      plan.first_seed_test = data.test->materialize(protocol.seeds.front());
      const Dataset& test = *plan.first_seed_test;
      const DatasetUse& use = protocol.datasets[sweep.datasets.size()];
      if (test.dim() != first.dim() || test.num_classes() != first.num_classes())
        throw Error(use.test.front().where, "the test part has d = " + std::to_string(test.dim()) +
                                                ", K = " + std::to_string(test.num_classes()) +
                                                "; the training part has d = " + std::to_string(first.dim()) +
                                                ", K = " + std::to_string(first.num_classes()));
    }
    plan.data = std::move(data);
    if (!protocol.batch())
      for (std::int32_t l = 0; l < static_cast<std::int32_t>(protocol.learners.size()); ++l)
        plan.oracle_params.push_back(protocol.oracle_for(l).resolve(0, &plan.shape));
    for (const auto& metric : protocol.metrics) plan.metric_params.push_back(metric.resolve(0, &plan.shape));
    shapes.push_back(plan.shape);
    sweep.datasets.push_back(std::move(plan));
  }
  sweep.list.runs = expand_runs(protocol, shapes);
  for (const auto& run : sweep.list.runs) {
    const ProblemShape& shape = shapes[static_cast<std::size_t>(run.dataset)];
    sweep.list.costs.push_back(static_cast<double>(protocol.passes) *
                               static_cast<double>(protocol.rounds_per_pass(shape.n)) * static_cast<double>(shape.K) *
                               static_cast<double>(shape.d));
  }
  return sweep;
}
}  // namespace

RunList list_runs(const Protocol& protocol) { return plan_sweep(protocol).list; }

std::vector<const RunSpec*> shard_runs(const RunList& list, const Shard& shard) {
  const std::vector<std::int32_t> shard_of =
      shard.whole() ? std::vector<std::int32_t>(list.runs.size(), 0) : assign_shards(list.costs, shard.count);
  std::vector<const RunSpec*> runs;
  for (std::size_t i = 0; i < list.runs.size(); ++i)
    if (shard_of[i] == shard.index) runs.push_back(&list.runs[i]);
  return runs;
}

std::string describe_run(const Protocol& protocol, const RunSpec& run) {
  return "run " + run.id + " (learner '" + protocol.learners[static_cast<std::size_t>(run.learner)].output_name +
         "', dataset '" + protocol.datasets[static_cast<std::size_t>(run.dataset)].name + "', seed " +
         std::to_string(run.seed) + ", params " + run.learner_params.to_json() + ")";
}

SweepResult run_sweep(const Protocol& protocol, const SweepOptions& options) {
  const auto start = Clock::now();
  SweepResult result;
  result.output = options.output ? *options.output : shard_output(default_output(protocol), options.shard);

  SweepPlan sweep = plan_sweep(protocol);
  std::vector<DatasetPlan>& plans = sweep.datasets;
  SeedCopies copies;
  SharedByRuns<std::pair<std::int32_t, std::uint64_t>, BatchSplitState> splits;  // (dataset, seed)
  for (auto& plan : plans) {
    copies.keep(plan.data, protocol.seeds.front(), std::move(plan.first_seed));
    if (plan.data.test) copies.keep(*plan.data.test, protocol.seeds.front(), std::move(plan.first_seed_test));
  }
  const std::vector<const RunSpec*> runs = shard_runs(sweep.list, options.shard);
  result.total_runs = static_cast<std::int64_t>(runs.size());

  // With a dispatcher, the coordinator owns the output; helpers only write parts beside it once it is ready.
  RunDispatcher* const dispatcher = options.dispatcher;
  const bool helper = dispatcher && !dispatcher->coordinator();
  std::optional<TraceStore> store;
  std::vector<const RunSpec*> pending;
  if (!helper) {
    store.emplace(result.output, protocol, options.force, options.shard);
    for (const auto* run : runs)
      if (store->in_flight_before().count(run->id)) {
        result.in_flight_before.push_back(describe_run(protocol, *run));
        if (options.log)
          *options.log << result.output.string() << ": " << result.in_flight_before.back()
                       << " was in flight when an earlier sweep of this output was killed or crashed; if it crashed, "
                          "this run (or another in flight with it) may be why\n";
      }
    for (const auto* run : runs)
      if (!store->completed().count(run->id)) pending.push_back(run);
    result.already_complete = result.total_runs - static_cast<std::int64_t>(pending.size());
    if (options.stop_after >= 0 && static_cast<std::int64_t>(pending.size()) > options.stop_after)
      pending.resize(static_cast<std::size_t>(options.stop_after));
  }

  // Runs sharing a per-seed dataset copy run one after another, so few copies are alive at once. (With a
  // dispatcher no process knows its runs in advance, so each keeps the copies it made to the end.)
  std::stable_sort(pending.begin(), pending.end(), [](const RunSpec* a, const RunSpec* b) {
    return std::pair(a->dataset, a->seed) < std::pair(b->dataset, b->seed);
  });
  if (!dispatcher)
    for (const auto* run : pending) {
      const PreparedDataset& prepared = plans[static_cast<std::size_t>(run->dataset)].data;
      copies.expect(prepared, run->seed);
      if (protocol.batch()) splits.expect({run->dataset, run->seed});
      if (prepared.test) copies.expect(*prepared.test, run->seed);
    }

  std::atomic<bool> stop_requested{false};
  const std::function<bool()> interrupted = [&] {
    return stop_requested.load(std::memory_order_relaxed) ||
           (options.interrupt && options.interrupt->load(std::memory_order_relaxed));
  };
  if (dispatcher) {
    std::vector<std::int64_t> order;
    for (const auto* run : pending) order.push_back(run->index);
    dispatcher->begin(std::move(order), interrupted);
  }
  if (helper) store.emplace(result.output, protocol, TraceStore::Helper{});
  Progress progress(options.progress && !helper, result.total_runs, protocol.selection);
  progress.runs_done = result.already_complete;
  // The next run this process executes, or null when none is left.
  std::atomic<std::size_t> next_pending{0};
  const auto next_run = [&]() -> const RunSpec* {
    if (dispatcher) {
      const std::int64_t index = dispatcher->next();
      return index < 0 ? nullptr : &sweep.list.runs[static_cast<std::size_t>(index)];
    }
    const std::size_t position = next_pending++;
    return position < pending.size() ? pending[position] : nullptr;
  };

  std::exception_ptr failure;  // what stops the sweep (with --fail-fast, the first failed run)
  std::mutex failure_mutex;    // guards `failure` and result.failures
  std::mutex profile_mutex;    // guards result.profiles
  const auto execute = [&](const RunSpec& run) -> bool {
    const DatasetPlan& plan = plans[static_cast<std::size_t>(run.dataset)];
    const std::shared_ptr<const Dataset> data_copy = copies.acquire(plan.data, run.seed);
    const std::shared_ptr<const Dataset> test_copy =
        plan.data.test ? copies.acquire(*plan.data.test, run.seed) : nullptr;
    const Dataset& data = *data_copy;
    const DatasetUse& dataset_use = protocol.datasets[static_cast<std::size_t>(run.dataset)];
    const PluginUse& learner_use = protocol.learners[static_cast<std::size_t>(run.learner)];
    const std::string params_json = run.learner_params.to_json();
    const StreamKeys keys(run.seed, dataset_use.name, learner_use.name(), params_json);

    RunRecord identity;
    identity.id = run.id;
    identity.index = run.index;
    identity.dataset = dataset_use.name;
    identity.dataset_variant = dataset_use.variant;
    identity.learner = learner_use.name();
    identity.label = learner_use.output_name;
    identity.learner_version = learner_use.plugin->spec->version;
    identity.learner_revision = learner_use.plugin->spec->revision;
    for (const auto& note : data.notes) identity.dataset_notes += (identity.dataset_notes.empty() ? "" : "\n") + note;
    identity.params_json = params_json;
    identity.seed = run.seed;
    identity.grid_point = run.grid_point;
    RunRecord record = identity;
    RoundProfile profile;
    const auto run_start = Clock::now();
    store->begin(run.id);
    // Everything the run's plugins do; a throw from any of them fails this run only.
    const auto run_plugins = [&]() -> bool {
      std::vector<std::unique_ptr<Metric>> metrics;
      for (std::size_t m = 0; m < protocol.metrics.size(); ++m)
        metrics.push_back(create_as<Metric>(protocol.metrics[m], plan.metric_params[m]));
      std::unique_ptr<Learner> learner;
      if (protocol.batch()) {
        BatchRunInputs inputs;
        inputs.data = &data;
        const std::pair split_id{run.dataset, run.seed};
        const std::shared_ptr<BatchSplitState> split = splits.acquire(split_id, [&] {
          auto state = std::make_shared<BatchSplitState>();
          state->rows =
              make_batch_split(data, split_rule(protocol, dataset_use), split_key(run.seed, dataset_use.split_name()));
          return state;
        });
        inputs.split = &split->rows;
        inputs.shared = &split->shared;
        inputs.learner_name = learner_use.name();
        inputs.make_learner = [&] { return create_as<Learner>(learner_use, run.learner_params); };
        inputs.batch_learner = learner_use.plugin->spec->batch;
        for (auto& metric : metrics) inputs.metrics.push_back(metric.get());
        inputs.learner_seed = keys.learner;
        inputs.passes = protocol.passes;
        inputs.test_every = protocol.test_every;
        inputs.interrupted = &interrupted;
        bool finished = false;
        try {
          finished = run_batch(inputs, record);
        } catch (...) {
          splits.release(split_id);
          throw;
        }
        splits.release(split_id);
        if (!finished) return false;
      } else {
        learner = create_as<Learner>(learner_use, run.learner_params);
        const PluginUse& oracle_use = protocol.oracle_for(run.learner);
        const ParamValues& oracle_params = plan.oracle_params[static_cast<std::size_t>(run.learner)];
        auto oracle = create_as<FeedbackOracle>(oracle_use, oracle_params);
        std::unique_ptr<QueryRule> rule;
        const PluginUse* rule_use = protocol.query_rule_for(run.learner);
        if (rule_use) rule = create_as<QueryRule>(*rule_use, run.query_rule_params);

        RoundLoopInputs inputs;
        inputs.data = &data;
        inputs.learner = learner.get();
        inputs.oracle = oracle.get();
        inputs.query_rule = rule.get();
        for (auto& metric : metrics) inputs.metrics.push_back(metric.get());
        inputs.learner_seed = keys.learner;
        inputs.order_key = keys.order;
        inputs.oracle_key = keys.oracle;
        inputs.query_key = keys.query;
        inputs.passes = protocol.passes;
        inputs.rounds_per_pass = protocol.rounds;
        inputs.order = protocol.order;
        inputs.test = test_copy.get();
        inputs.test_every = protocol.test_every;
        inputs.trace_rounds = protocol.trace_rounds;
        inputs.rounds_done = &progress.rounds_done;
        inputs.interrupted = &interrupted;
        if (options.profile) inputs.profile = &profile;
        if (!run_rounds(inputs, record)) return false;
        record.oracle = oracle_use.name();
        record.oracle_params = oracle_params.to_json();
        record.query_rule = rule_use ? rule_use->name() : "";
        record.query_rule_params = rule_use ? run.query_rule_params.to_json() : "";
      }
      record.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
      record.peak_rss_mb = peak_rss_mb();
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        MetricResults out;
        metrics[m]->report(out);
        append_results(record, std::move(out),
                       [&](const std::string& suffix) { return metric_output_name(protocol.metrics[m], suffix); });
      }
      if (learner) {
        MetricResults out;
        learner->report(out);
        append_results(record, std::move(out), [](const std::string& suffix) { return "learner_" + suffix; });
      }
      return true;
    };
    try {
      if (!run_plugins()) {  // abandoned: nothing written, a rerun redoes it
        store->abandon(run.id);
        return false;
      }
    } catch (const std::exception& e) {
      const auto* in_round = dynamic_cast<const RunFailure*>(&e);
      RunRecord failed = std::move(identity);
      failed.error = e.what();
      failed.failed_round = in_round ? in_round->round : 0;
      failed.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
      failed.peak_rss_mb = peak_rss_mb();
      store->write(failed);
      const std::string message = describe_run(protocol, run) + " failed: " + failed.error;
      if (options.fail_fast) throw Error(message + " (--fail-fast: stopping the sweep)");
      std::lock_guard lock(failure_mutex);
      result.failures.push_back(message);
      if (options.log) *options.log << message << '\n';
      return false;
    }
    store->write(record);
    progress.record(record);
    if (options.profile && profile.rounds > 0) {
      std::lock_guard lock(profile_mutex);
      auto row = std::find_if(result.profiles.begin(), result.profiles.end(), [&](const ProfileRow& r) {
        return r.dataset == record.dataset && r.learner == record.label;
      });
      if (row == result.profiles.end()) row = result.profiles.insert(row, {record.dataset, record.label, 0, {}});
      ++row->runs;
      row->profile.add(profile);
    }
    return true;
  };

  std::atomic<std::int64_t> completed{0};
  std::atomic<std::int64_t> rounds{0};
  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  tbb::task_arena arena(threads);
  arena.execute([&] {
    // One task per thread, each taking runs until none is left: runs go out one at a time, in order.
    tbb::parallel_for(0, threads, [&](int) {
      while (!interrupted()) {
        const RunSpec* next = next_run();
        if (!next) return;
        const RunSpec& run = *next;
        const auto& plan = plans[static_cast<std::size_t>(run.dataset)];
        try {
          if (execute(run)) {
            ++completed;
            ++progress.runs_done;
            rounds += protocol.passes * protocol.rounds_per_pass(plan.shape.n);
          }
        } catch (...) {
          std::lock_guard lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          stop_requested = true;
        }
        copies.release(plan.data, run.seed);
        if (plan.data.test) copies.release(*plan.data.test, run.seed);
      }
    });
  });
  result.completed_now = completed;
  result.rounds = rounds;
  if (dispatcher) dispatcher->end(result);
  if (helper) {
    if (failure) std::rethrow_exception(failure);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }

  // Whatever happened, every finished run goes into the output file. When that fails too (a full disk stops
  // both), the sweep's own error comes first, the output's beside it.
  try {
    store->finalize(static_cast<std::int64_t>(sweep.list.runs.size()));
  } catch (const std::exception& assembling) {
    if (!failure) throw;
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& first) {
      throw Error(std::string(first.what()) + "; then the output could not be written: " + assembling.what());
    }
  }
  if (failure) std::rethrow_exception(failure);
  result.interrupted =
      result.already_complete + result.completed_now + static_cast<std::int64_t>(result.failures.size()) <
      result.total_runs;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace glimpse
