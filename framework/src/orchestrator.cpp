// Running a sweep: the planned runs handed out to worker threads (or to processes, through a RunDispatcher), each
// run's plugins made and driven by the round loop or a batch fit, and every finished run handed to the trace store.
#include "orchestrator.hpp"

#include <sys/resource.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "batch.hpp"
#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"
#include "run_writer.hpp"
#include "shared_by_runs.hpp"
#include "stream_keys.hpp"
#include "trace_schema.hpp"
#include "trace_store.hpp"

namespace glimpse {
using Clock = std::chrono::steady_clock;

// Per-round data the writer thread may hold queued before a worker waits for it: a few hundred runs of 1-2 MB.
constexpr std::size_t writer_queue_limit_bytes = std::size_t{512} << 20;

namespace {

std::string metric_output_name(const PluginUse& metric, const std::string& suffix) {
  return suffix.empty() ? metric.output_name : metric.output_name + "_" + suffix;
}

// Moves a metric's (or a learner's) results into the run record, renamed from theirs to the trace's by `name_of`.
template <class NameOf>
void append_results(RunRecord& record, MetricResults&& out, const NameOf& name_of) {
  const auto append = [&](auto& results, auto& into) {
    for (auto& result : results) {
      result.name = name_of(result.name);
      into.push_back(std::move(result));
    }
  };
  append(out.scalars, record.scalars);
  append(out.curves, record.curves);
  append(out.matrices, record.matrices);
}

// The process's peak resident set so far, in MB (Linux reports ru_maxrss in KiB).
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The run's identity as its trace records it, whether it completes or fails.
RunRecord run_identity(const Protocol& protocol, const RunSpec& run, const Dataset& data) {
  const DatasetUse& dataset_use = protocol.datasets[static_cast<std::size_t>(run.dataset)];
  const PluginUse& learner_use = protocol.learners[static_cast<std::size_t>(run.learner)];
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
  identity.params_json = run.learner_params.to_json();
  identity.seed = run.seed;
  identity.grid_point = run.grid_point;
  return identity;
}

// One invocation of run_sweep: its plan, shared data, output and worker threads.
class Sweep {
 public:
  Sweep(const Protocol& protocol, const SweepOptions& options);
  SweepResult run();

 private:
  // The data one run sees: its dataset (a per-seed copy when transforms are per seed) and held-out part.
  struct RunData {
    std::shared_ptr<const Dataset> data, test;
  };
  void open_output();
  void expect_shared_data();
  const RunSpec* next_run();
  void run_workers();
  bool execute(const RunSpec& run, SweepProfile::Worker& worker);
  bool run_plugins(const RunSpec& run, const RunData& data, RunRecord& record, RoundProfile& profile,
                   Clock::time_point run_start);
  bool run_batch_split(const RunSpec& run, const Dataset& data, std::vector<Metric*> metrics, RunRecord& record);
  bool run_online(const RunSpec& run, const RunData& data, std::vector<Metric*> metrics, RunRecord& record,
                  RoundProfile& profile, std::unique_ptr<Learner>& learner);
  void record_failure(const RunSpec& run, RunRecord identity, const std::exception& e, Clock::time_point run_start,
                      SweepProfile::Worker& worker);
  void add_profile(const RunRecord& record, const RoundProfile& profile);
  SweepResult finish();

  const Protocol& protocol_;
  const SweepOptions& options_;
  const Clock::time_point start_ = Clock::now();
  SweepResult result_;
  SweepPlan plan_;
  SeedCopies copies_;
  SharedByRuns<std::pair<std::int32_t, std::uint64_t>, BatchSplitState> splits_;  // (dataset, seed)
  // With a dispatcher, the coordinator owns the output; helpers only write parts beside it once it is ready.
  RunDispatcher* const dispatcher_;
  const bool helper_;
  SweepObserver* const observer_;  // options.observer, except in a helper process (the coordinator tells it)
  std::optional<TraceStore> store_;
  std::optional<RunWriter> writer_;  // writes finished runs to store_ on a thread of its own
  std::vector<const RunSpec*> pending_;
  std::atomic<std::size_t> next_pending_{0};
  std::atomic<bool> stop_requested_{false};
  const std::function<bool()> interrupted_;
  std::atomic<std::int64_t> rounds_played_{0};  // this invocation's, as they play (SweepObserver::begin)
  std::exception_ptr failure_;                  // what stops the sweep (with --fail-fast, the first failed run)
  std::mutex failure_mutex_;                    // guards failure_ and result_.failures
  std::mutex profile_mutex_;                    // guards result_.profiles
  std::atomic<std::int64_t> completed_{0};
  std::atomic<std::int64_t> rounds_{0};
};

Sweep::Sweep(const Protocol& protocol, const SweepOptions& options)
    : protocol_(protocol),
      options_(options),
      plan_(plan_sweep(protocol, options.prepared_cache)),
      dispatcher_(options.dispatcher),
      helper_(options.dispatcher && !options.dispatcher->coordinator()),
      observer_(helper_ ? nullptr : options.observer),
      interrupted_([this] {
        return stop_requested_.load(std::memory_order_relaxed) ||
               (options_.interrupt && options_.interrupt->load(std::memory_order_relaxed));
      }) {
  result_.output = options.output ? *options.output : shard_output(default_output(protocol), options.shard);
  for (auto& dataset : plan_.datasets) {
    copies_.keep(dataset.data, protocol.seeds.front(), std::move(dataset.first_seed));
    if (dataset.data.test) copies_.keep(*dataset.data.test, protocol.seeds.front(), std::move(dataset.first_seed_test));
  }
}

// The coordinator (or a lone process) opens the output, reports runs an earlier sweep left in flight, and lists
// the runs still to do.
void Sweep::open_output() {
  std::vector<const RunSpec*> runs = shard_runs(plan_.list, options_.shard);
  if (!options_.only.empty()) {
    for (const auto& id : options_.only)
      if (std::none_of(runs.begin(), runs.end(), [&](const RunSpec* run) { return run->id == id; }))
        throw Error("--only", "no run '" + id + "' in " + protocol_.file + " (its runs are 000000 to " +
                                  (plan_.list.runs.empty() ? std::string("none") : plan_.list.runs.back().id) + ")");
    std::erase_if(runs, [&](const RunSpec* run) {
      return std::find(options_.only.begin(), options_.only.end(), run->id) == options_.only.end();
    });
  }
  result_.total_runs = static_cast<std::int64_t>(runs.size());
  if (helper_) return;
  if (options_.log)
    for (const auto& note : plan_.list.notes) *options_.log << "glimpse: note: " << note << '\n';
  store_.emplace(result_.output, protocol_, options_.force, options_.shard);
  store_->compact_rounds(options_.compact_traces);
  for (const auto* run : runs)
    if (store_->in_flight_before().count(run->id)) {
      result_.in_flight_before.push_back(describe_run(protocol_, *run));
      if (options_.log)
        *options_.log << result_.output.string() << ": " << result_.in_flight_before.back()
                      << " was in flight when an earlier sweep of this output was killed or crashed; if it crashed, "
                         "this run (or another in flight with it) may be why\n";
    }
  for (const auto* run : runs)
    if (!store_->completed().count(run->id)) pending_.push_back(run);
  result_.already_complete = result_.total_runs - static_cast<std::int64_t>(pending_.size());
  if (options_.stop_after >= 0 && static_cast<std::int64_t>(pending_.size()) > options_.stop_after)
    pending_.resize(static_cast<std::size_t>(options_.stop_after));
}

// The longest runs go first (their cost is known: passes x rows x K x d), so that the last runs handed out are short
// and the threads finish together instead of waiting for one long run; runs sharing a per-seed dataset copy run one
// after another, so few copies are alive at once. (With a dispatcher no process knows its runs in advance, so each
// keeps the copies it made to the end.)
void Sweep::expect_shared_data() {
  const auto& costs = plan_.list.costs;
  std::stable_sort(pending_.begin(), pending_.end(), [&](const RunSpec* a, const RunSpec* b) {
    const double cost_a = costs[static_cast<std::size_t>(a->index)], cost_b = costs[static_cast<std::size_t>(b->index)];
    if (cost_a != cost_b) return cost_a > cost_b;
    return std::pair(a->dataset, a->seed) < std::pair(b->dataset, b->seed);
  });
  if (dispatcher_) return;
  for (const auto* run : pending_) {
    const PreparedDataset& prepared = plan_.datasets[static_cast<std::size_t>(run->dataset)].data;
    copies_.expect(prepared, run->seed);
    if (protocol_.batch()) splits_.expect({run->dataset, run->seed});
    if (prepared.test) copies_.expect(*prepared.test, run->seed);
  }
}

// The next run this process executes, or null when none is left.
const RunSpec* Sweep::next_run() {
  if (dispatcher_) {
    const std::int64_t index = dispatcher_->next();
    return index < 0 ? nullptr : &plan_.list.runs[static_cast<std::size_t>(index)];
  }
  const std::size_t position = next_pending_++;
  return position < pending_.size() ? pending_[position] : nullptr;
}

SweepResult Sweep::run() {
  open_output();
  expect_shared_data();
  result_.sweep_profile.planning = std::chrono::duration<double>(Clock::now() - start_).count();
  if (dispatcher_) {
    std::vector<std::int64_t> order;
    for (const auto* run : pending_) order.push_back(run->index);
    dispatcher_->begin(std::move(order), interrupted_);
  }
  if (helper_) {
    store_.emplace(result_.output, protocol_, TraceStore::Helper{});
    store_->compact_rounds(options_.compact_traces);
  }
  if (observer_) observer_->begin(result_.total_runs, result_.already_complete, rounds_played_);
  writer_.emplace(*store_, writer_queue_limit_bytes, [this](const RunRecord& record) {
    if (observer_ && record.error.empty()) observer_->run_completed(record);
  });
  {
    // The observer reads rounds_played_ until end(), which must come before this sweep is gone, even on a throw.
    const std::unique_ptr<SweepObserver, void (*)(SweepObserver*)> ending(observer_,
                                                                          [](SweepObserver* o) { o->end(); });
    run_workers();
    try {
      writer_->close();  // everything finished is written before the counts are taken
    } catch (...) {
      std::lock_guard lock(failure_mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    result_.sweep_profile.writer = writer_->writing_seconds();
    result_.sweep_profile.writer_logging = writer_->logging_seconds();
  }
  result_.completed_now = completed_;
  result_.rounds = rounds_;
  if (dispatcher_) dispatcher_->end(result_);
  const auto finishing = Clock::now();
  SweepResult result = finish();
  SweepProfile& profile = result.sweep_profile;
  profile.finishing = std::chrono::duration<double>(Clock::now() - finishing).count();
  profile.wall = std::chrono::duration<double>(Clock::now() - start_).count();
  return result;
}

void Sweep::run_workers() {
  const int threads = options_.threads > 0 ? options_.threads : tbb::info::default_concurrency();
  SweepProfile& profile = result_.sweep_profile;
  profile.threads = threads;
  profile.per_thread.assign(static_cast<std::size_t>(threads), {});
  std::vector<Clock::time_point> last_end(static_cast<std::size_t>(threads));
  const auto begin = Clock::now();
  tbb::task_arena arena(threads);
  arena.execute([&] {
    // One task per thread, each taking runs until none is left: runs go out one at a time, in order.
    tbb::parallel_for(0, threads, [&](int slot) {
      SweepProfile::Worker& worker = profile.per_thread[static_cast<std::size_t>(slot)];
      last_end[static_cast<std::size_t>(slot)] = Clock::now();
      while (!interrupted_()) {
        const RunSpec* next = next_run();
        if (!next) break;
        const RunSpec& run = *next;
        const auto& dataset = plan_.datasets[static_cast<std::size_t>(run.dataset)];
        try {
          if (execute(run, worker)) {
            ++completed_;
            rounds_ += protocol_.passes * protocol_.rounds_per_pass(dataset.shape.n);
          }
        } catch (...) {
          std::lock_guard lock(failure_mutex_);
          if (!failure_) failure_ = std::current_exception();
          stop_requested_ = true;
        }
        copies_.release(dataset.data, run.seed);
        if (dataset.data.test) copies_.release(*dataset.data.test, run.seed);
        ++worker.runs;
        last_end[static_cast<std::size_t>(slot)] = Clock::now();
      }
    });
  });
  const auto end = Clock::now();
  profile.workers = std::chrono::duration<double>(end - begin).count();
  for (std::size_t t = 0; t < last_end.size(); ++t)
    profile.per_thread[t].idle_tail = std::chrono::duration<double>(end - last_end[t]).count();
}

// One run, start to trace: true when it completed, false when it failed (recorded) or was abandoned.
bool Sweep::execute(const RunSpec& run, SweepProfile::Worker& worker) {
  const auto setup_start = Clock::now();
  const DatasetPlan& dataset = plan_.datasets[static_cast<std::size_t>(run.dataset)];
  RunData data{copies_.acquire(dataset.data, run.seed),
               dataset.data.test ? copies_.acquire(*dataset.data.test, run.seed) : nullptr};
  RunRecord identity = run_identity(protocol_, run, *data.data);
  RunRecord record = identity;
  RoundProfile profile;
  const auto run_start = Clock::now();
  worker.setup += std::chrono::duration<double>(run_start - setup_start).count();
  store_->begin(run.id);
  try {
    // Everything the run's plugins do; a throw from any of them fails this run only.
    const bool finished = run_plugins(run, data, record, profile, run_start);
    worker.run += std::chrono::duration<double>(Clock::now() - run_start).count();
    if (!finished) {  // abandoned: nothing written, a rerun redoes it
      store_->abandon(run.id);
      return false;
    }
  } catch (const std::exception& e) {
    record_failure(run, std::move(identity), e, run_start, worker);
    return false;
  }
  if (options_.profile && profile.rounds > 0) add_profile(record, profile);
  writer_->submit(std::move(record), worker);
  return true;
}

bool Sweep::run_plugins(const RunSpec& run, const RunData& data, RunRecord& record, RoundProfile& profile,
                        Clock::time_point run_start) {
  const DatasetPlan& dataset = plan_.datasets[static_cast<std::size_t>(run.dataset)];
  std::vector<std::unique_ptr<Metric>> metrics;
  std::vector<Metric*> metric_pointers;
  for (std::size_t m = 0; m < protocol_.metrics.size(); ++m) {
    metrics.push_back(protocol_.metrics[m].create<Metric>(dataset.metric_params[m]));
    metric_pointers.push_back(metrics.back().get());
  }
  std::unique_ptr<Learner> learner;  // an online run's, which reports after the metrics
  const bool finished = protocol_.batch() ? run_batch_split(run, *data.data, metric_pointers, record)
                                          : run_online(run, data, metric_pointers, record, profile, learner);
  if (!finished) return false;
  record.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  record.peak_rss_mb = peak_rss_mb();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    MetricResults out;
    metrics[m]->report(out);
    append_results(record, std::move(out),
                   [&](const std::string& suffix) { return metric_output_name(protocol_.metrics[m], suffix); });
  }
  if (const auto* reporter = dynamic_cast<const RunReporter*>(learner.get())) {  // null for batch runs
    MetricResults out;
    reporter->report(out);
    append_results(record, std::move(out),
                   [](const std::string& suffix) { return schema::run::learner_prefix + suffix; });
  }
  return true;
}

bool Sweep::run_batch_split(const RunSpec& run, const Dataset& data, std::vector<Metric*> metrics, RunRecord& record) {
  const DatasetUse& dataset_use = protocol_.datasets[static_cast<std::size_t>(run.dataset)];
  const PluginUse& learner_use = protocol_.learners[static_cast<std::size_t>(run.learner)];
  const StreamKeys keys(run.seed, dataset_use.name, learner_use.name(), run.learner_identity);
  BatchRunInputs inputs;
  inputs.data = &data;
  const std::pair split_id{run.dataset, run.seed};
  const std::shared_ptr<BatchSplitState> split = splits_.acquire(split_id, [&] {
    auto state = std::make_shared<BatchSplitState>();
    state->rows =
        make_batch_split(data, split_rule(protocol_, dataset_use), split_key(run.seed, dataset_use.split_name));
    return state;
  });
  inputs.split = &split->rows;
  inputs.shared = &split->shared;
  inputs.learner_name = learner_use.name();
  inputs.make_learner = [&] { return learner_use.create<PluginObject>(run.learner_params); };
  inputs.batch_learner = learner_use.plugin->spec->batch;
  inputs.metrics = std::move(metrics);
  inputs.learner_seed = keys.learner;
  inputs.passes = protocol_.passes;
  inputs.test_every = protocol_.test_every;
  inputs.interrupted = &interrupted_;
  bool finished = false;
  try {
    finished = run_batch(inputs, record);
  } catch (...) {
    splits_.release(split_id);
    throw;
  }
  splits_.release(split_id);
  return finished;
}

bool Sweep::run_online(const RunSpec& run, const RunData& data, std::vector<Metric*> metrics, RunRecord& record,
                       RoundProfile& profile, std::unique_ptr<Learner>& learner) {
  const DatasetUse& dataset_use = protocol_.datasets[static_cast<std::size_t>(run.dataset)];
  const PluginUse& learner_use = protocol_.learners[static_cast<std::size_t>(run.learner)];
  const StreamKeys keys(run.seed, dataset_use.name, learner_use.name(), run.learner_identity);
  learner = learner_use.create<Learner>(run.learner_params);
  const PluginUse& oracle_use = protocol_.oracle_for(run.learner);
  const ParamValues& oracle_params =
      plan_.datasets[static_cast<std::size_t>(run.dataset)].oracle_params[static_cast<std::size_t>(run.learner)];
  const auto oracle = oracle_use.create<FeedbackOracle>(oracle_params);
  const PluginUse* rule_use = protocol_.query_rule_for(run.learner);
  const auto rule = rule_use ? rule_use->create<QueryRule>(run.query_rule_params) : nullptr;

  RoundLoopInputs inputs;
  inputs.data = data.data.get();
  inputs.learner = learner.get();
  inputs.label_buyer = dynamic_cast<LabelBuyer*>(learner.get());
  inputs.oracle = oracle.get();
  inputs.query_rule = rule.get();
  inputs.metrics = std::move(metrics);
  inputs.learner_seed = keys.learner;
  inputs.order_key = keys.order;
  inputs.oracle_key = keys.oracle;
  inputs.query_key = keys.query;
  inputs.passes = protocol_.passes;
  inputs.rounds_per_pass = protocol_.rounds;
  inputs.order = protocol_.order;
  inputs.test = data.test.get();
  inputs.test_every = protocol_.test_every;
  inputs.trace_rounds = protocol_.trace_rounds;
  inputs.rounds_done = &rounds_played_;
  inputs.interrupted = &interrupted_;
  if (options_.profile) inputs.profile = &profile;
  if (!run_rounds(inputs, record)) return false;
  record.oracle = oracle_use.name();
  record.oracle_params = oracle_params.to_json();
  record.query_rule = rule_use ? rule_use->name() : "";
  record.query_rule_params = rule_use ? run.query_rule_params.to_json() : "";
  return true;
}

void Sweep::record_failure(const RunSpec& run, RunRecord identity, const std::exception& e, Clock::time_point run_start,
                           SweepProfile::Worker& worker) {
  const auto* in_round = dynamic_cast<const RunFailure*>(&e);
  RunRecord failed = std::move(identity);
  failed.error = e.what();
  failed.failed_round = in_round ? in_round->round : 0;
  failed.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  failed.peak_rss_mb = peak_rss_mb();
  const std::string message = describe_run(protocol_, run) + " failed: " + failed.error;
  writer_->submit(std::move(failed), worker);
  if (options_.fail_fast) throw Error(message + " (--fail-fast: stopping the sweep)");
  std::lock_guard lock(failure_mutex_);
  result_.failures.push_back(message);
  if (options_.log) *options_.log << message << '\n';
}

void Sweep::add_profile(const RunRecord& record, const RoundProfile& profile) {
  std::lock_guard lock(profile_mutex_);
  auto row = std::find_if(result_.profiles.begin(), result_.profiles.end(), [&](const ProfileRow& r) {
    return r.dataset == record.dataset && r.learner == record.label;
  });
  if (row == result_.profiles.end()) row = result_.profiles.insert(row, {record.dataset, record.label, 0, {}});
  ++row->runs;
  row->profile.add(profile);
}

// Whatever happened, every finished run goes into the output file. When that fails too (a full disk stops both),
// the sweep's own error comes first, the output's beside it.
SweepResult Sweep::finish() {
  if (!helper_) {
    try {
      store_->finalize(static_cast<std::int64_t>(plan_.list.runs.size()));
    } catch (const std::exception& assembling) {
      if (!failure_) throw;
      try {
        std::rethrow_exception(failure_);
      } catch (const std::exception& first) {
        throw Error(std::string(first.what()) + "; then the output could not be written: " + assembling.what());
      }
    }
  }
  if (failure_) std::rethrow_exception(failure_);
  if (!helper_)
    result_.interrupted =
        result_.already_complete + result_.completed_now + static_cast<std::int64_t>(result_.failures.size()) <
        result_.total_runs;
  result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  return result_;
}

}  // namespace

SweepResult run_sweep(const Protocol& protocol, const SweepOptions& options) { return Sweep(protocol, options).run(); }

}  // namespace glimpse
