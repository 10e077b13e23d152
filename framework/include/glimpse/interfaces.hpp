// The six plugin kinds: small abstract classes holding exactly the calls the round loop makes.
//
// Threading: one object serves one run; the orchestrator never calls an object from two threads at once,
// but many objects of the same plugin run concurrently, so plugins keep no mutable global state.
// Allocation: reset() sizes every buffer; the per-round calls (predict, learn, decide, respond, observe)
// must not allocate.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "glimpse/dataset.hpp"
#include "glimpse/instance.hpp"
#include "glimpse/named_results.hpp"
#include "glimpse/params.hpp"
#include "glimpse/plugin.hpp"
#include "glimpse/prediction.hpp"
#include "glimpse/random.hpp"

namespace glimpse {

// What a metric (or a learner, about itself) reports at the end of a run. Names are suffixes of the metric's
// output name: an empty name gives the protocol's name for the metric itself ("online_accuracy"), "proposed" gives
// "mistakes_proposed"; a learner's names follow "learner_" ("learner_switch_round").
struct MetricResults {
  using Scalar = NamedScalar;
  using Curve = NamedCurve;
  using Matrix = NamedMatrix;  // e.g. a confusion matrix; written to the trace as a 2-D dataset
  std::vector<Scalar> scalars;
  std::vector<Curve> curves;
  std::vector<Matrix> matrices;
};

class GLIMPSE_API Learner : public PluginObject {
 public:
  // Called once before a run's first round. `seed` keys the learner's own random stream (exploration).
  virtual void reset(const ProblemShape& shape, std::uint64_t seed) = 0;
  // Fills pred.scores (already K long), pred.predicted and pred.proposed for x. May draw exploration.
  virtual void predict(const Instance& x, Prediction& pred) = 0;
  // Called every round after predict on the same x, with what the oracle said (NoFeedback when the
  // query rule did not ask). A learner never sees the true label except through `feedback`.
  virtual void learn(const Instance& x, const Prediction& pred, const Feedback& feedback) = 0;
  // A hint, given during a round after predict(), that `upcoming` is the next round's row: a learner whose rounds
  // wait on memory (a sparse row's weights scattered over a large matrix) can start loading what it will read, so
  // the loads overlap this round's remaining work. Must change nothing a prediction depends on.
  virtual void prefetch(const Instance& upcoming) noexcept { (void)upcoming; }
  // Held-out evaluation: the greedy prediction for x, changing nothing (no learning, no random draws), so a
  // run's training does not depend on how often it is tested. The default calls predict(); a learner whose
  // predict() draws randomness or keeps state must override it.
  virtual void evaluate(const Instance& x, Prediction& pred) { predict(x, pred); }
};

// Optional abilities of a learner: small interfaces a learner class adds beside Learner when it has them. The core
// asks for each once per run (a dynamic_cast), so a learner without them writes and pays nothing for them.

// Buys labels beyond the query rule's: called every round of a run with a query rule, after the rule decided
// (`rule_queries`) and before learn(); returning true makes the round a queried one anyway, and learn() then gets
// the oracle's feedback. For audits such as the random subsample of P1's safety switch.
class GLIMPSE_API LabelBuyer {
 public:
  virtual ~LabelBuyer();
  virtual bool wants_label(bool rule_queries) = 0;
};

// Reports on its own run (e.g. whether and when it switched models): written to the trace beside the metrics'
// results under "learner_" + suffix, after the metrics.
class GLIMPSE_API RunReporter {
 public:
  virtual ~RunReporter();
  virtual void report(MetricResults& out) const = 0;
};

// The training part of one split of a batch protocol (kind "batch"), as a batch learner sees
// it: views into the shared dataset, nothing copied. The points are the split's training rows, labelled and
// unlabelled, in an order shared by every fit on this split (every learner, grid point and cross-validation
// fold), so a precomputation over all of them, such as a k-NN graph, can be built once through shared().
class GLIMPSE_API BatchProblem {
 public:
  virtual ~BatchProblem();
  virtual ProblemShape shape() const = 0;  // n: the training points
  virtual Instance point(std::int64_t i) const = 0;
  // The points whose labels this fit may use (indices into point()), and their labels in the same order.
  virtual std::span<const std::int64_t> labelled() const = 0;
  virtual std::span<const std::int32_t> labels() const = 0;
  // Call after each iteration of the fit with the objective: the host records it, may evaluate the learner on
  // the test part now (so evaluate() must work between iterations), and returns false when the run is to stop
  // (interrupted), after which fit() should return promptly.
  virtual bool iteration_done(std::int64_t iteration, double objective) = 0;
  // An object shared by every fit on this split, made by `build` (returning a std::shared_ptr<T>) on the first
  // request for `key` (concurrent requests wait for it), freed after the split's last run. The host keeps each
  // plugin's keys apart.
  template <class T, class Build>
  std::shared_ptr<const T> shared(const std::string& key, Build&& build) {
    return std::static_pointer_cast<const T>(
        shared_object(key, [&]() -> std::shared_ptr<const void> { return std::shared_ptr<const T>(build()); }));
  }

 protected:
  virtual std::shared_ptr<const void> shared_object(const std::string& key,
                                                    const std::function<std::shared_ptr<const void>()>& build) = 0;
};

// A learner fitted on a whole training part at once (declare PluginSpec::batch and no feedback kind): a kind of
// its own, not a Learner. In batch protocols fit() is called once on a fresh object, then evaluate() on held-out
// rows (also between iterations, from BatchProblem::iteration_done). Online protocols refuse it at validation.
class GLIMPSE_API BatchLearner : public PluginObject {
 public:
  ~BatchLearner() override;
  // `seed` keys the fit's own random stream (e.g. SGD's choice of points).
  virtual void fit(BatchProblem& problem, std::uint64_t seed) = 0;
  // The prediction for x (scores, predicted and proposed), changing nothing.
  virtual void evaluate(const Instance& x, Prediction& pred) = 0;
};

// What the world knows about a round; only oracles and metrics see it.
struct RoundTruth {
  std::int64_t round = 0;                       // 1-based, counts every round of the run
  std::int32_t label = 0;                       // the true class, 0-based
  std::span<const double> class_probabilities;  // p(y|x) for synthetic streams, else empty
  std::int64_t row = 0;                         // the dataset row shown this round, 0-based
};

class GLIMPSE_API FeedbackOracle : public PluginObject {
 public:
  virtual void reset(const ProblemShape& /*shape*/) {}
  // What a user should know about this oracle on data of this shape before any run (e.g. candidate sets as large as
  // K, which hold every label and so say nothing): the host prints each as a note naming the protocol's entry.
  virtual std::vector<std::string> notes(const ProblemShape& /*shape*/) const { return {}; }
  // `rng` is this round's stream, keyed by (seed, dataset, round) only: runs that share a dataset and
  // seed receive the same draws whatever their learner did. Spans in the result may point into the
  // oracle's own buffers and stay valid until the next call.
  virtual Feedback respond(const Instance& x, const RoundTruth& truth, const Prediction& pred, Rng& rng) = 0;
};

class GLIMPSE_API QueryRule : public PluginObject {
 public:
  virtual void reset(const ProblemShape& /*shape*/) {}
  // Whether to ask for feedback on x this round (1-based `round`); rules keep their own state
  // (e.g. the matrix of queried instances) and update it here when they return true.
  virtual bool decide(const Instance& x, const Prediction& pred, std::int64_t round, Rng& rng) = 0;
};

struct RoundRecord {
  std::int64_t round = 0;  // 1-based
  const RoundTruth* truth = nullptr;
  const Prediction* prediction = nullptr;
  const Feedback* feedback = nullptr;
  bool queried = true;
};

class GLIMPSE_API Metric : public PluginObject {
 public:
  // `total_rounds` is known in advance (rows x passes): reserve curve storage here.
  virtual void reset(const ProblemShape& shape, std::int64_t total_rounds) = 0;
  virtual void observe(const RoundRecord& record) = 0;
  // Held-out evaluation (a protocol dataset with a "test" part): after the rounds the protocol chooses, the
  // learner predicts every test row; the metric sees each (true label, prediction), then test_done(round).
  virtual void observe_test(std::int32_t /*label*/, const Prediction& /*pred*/) {}
  virtual void test_done(std::int64_t /*round*/) {}
  virtual void report(MetricResults& out) const = 0;
};

struct SeedContext;

class GLIMPSE_API DataSource : public PluginObject {
 public:
  // Reads or generates the whole dataset. Throws Error naming the file and line on malformed input.
  // File parameters are declared with ParamSpec::path, so they arrive resolved against the protocol's folder.
  virtual Dataset load() = 0;
  // true: a generator whose trials are independent draws. Then load_for_seed() is called once for each of the
  // protocol's seeds (possibly concurrently, for different seeds) instead of load(), and the protocol's
  // transforms are applied to each draw.
  virtual bool per_seed() const { return false; }
  virtual Dataset load_for_seed(const SeedContext& seed) const;
  // What the rows depend on besides the parameters and the files path parameters name (e.g. an installed file's
  // size and time): part of the prepared cache's key.
  virtual std::string identity() const { return {}; }
  // true when load() only maps a file already in glimpse's format (glimpse/dataset_file.hpp): the prepared cache then
  // keeps the dataset only after transforms, which compute something.
  virtual bool loads_prepared_file() const { return false; }
};

// What a per-seed transform (or a per-seed data source) learns about the runs it prepares data for.
struct SeedContext {
  std::uint64_t seed = 0;               // the runs' seed, as the protocol gives it
  std::uint64_t key = 0;                // a random-stream key for (seed, dataset, this transform)
  std::span<const std::int64_t> order;  // the rows in the order the runs' first pass visits them
  // The rows a transform with fitted statistics (Transform::fits_statistics) may learn them from; empty: all rows.
  // In batch protocols these are the seed's training rows, so that no test row moves a training statistic.
  std::span<const std::int64_t> fit_rows;

  // Calls visit(row) for every row a fitted statistic may learn from.
  template <class Visit>
  void for_each_fit_row(const Dataset& data, Visit&& visit) const {
    if (fit_rows.empty()) {
      for (std::int64_t row = 0; row < data.size(); ++row) visit(row);
    } else {
      for (const std::int64_t row : fit_rows) visit(row);
    }
  }

  // `order`, checked to list as many rows as `data` has: a mismatch is a bug in the caller (std::logic_error),
  // which would otherwise read past the rows.
  std::span<const std::int64_t> order_of(const Dataset& data) const {
    if (order.size() != static_cast<std::size_t>(data.size()))
      throw std::logic_error("per-seed transform: the stream order has " + std::to_string(order.size()) +
                             " rows, the dataset " + std::to_string(data.size()));
    return order;
  }
};

class GLIMPSE_API Transform : public PluginObject {
 public:
  // false: applied once per dataset, before any run, with an empty SeedContext. true: applied once per
  // (dataset, seed) to a copy shared by every run with that seed (e.g. noise drawn per trial, a kernel map
  // over the first rows of each trial's stream); every transform after it in the protocol is then per seed too.
  virtual bool per_seed() const { return false; }
  // true: the transform learns statistics from the rows (a mean, a range) and applies them to every row. It then
  // learns only from SeedContext::fit_rows: in batch protocols the seed's training part (the protocol's
  // "split.fit_transforms_on"), which makes it, and every transform after it, per seed there.
  virtual bool fits_statistics() const { return false; }
  // Rewrites the dataset in place (or replaces it).
  virtual void apply(Dataset& data, const SeedContext& seed) const = 0;
};

}  // namespace glimpse
