#include "batch.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "glimpse/error.hpp"
#include "glimpse/random.hpp"
#include "glimpse/split.hpp"
#include "round_loop.hpp"
#include "stream_order.hpp"

namespace glimpse {

BatchSplitRows make_batch_split(const Dataset& data, const BatchSplit& split, std::uint64_t key) {
  BatchSplitRows rows;
  const std::vector<bool> held_out =
      stratified_choice(data.labels(), data.num_classes(), split.test, derive_key(key, hash_name("test")));
  std::vector<std::int32_t> train_labels;
  for (std::int64_t row = 0; row < data.size(); ++row) {
    if (held_out[static_cast<std::size_t>(row)]) {
      rows.test.push_back(row);
    } else {
      rows.train.push_back(row);
      train_labels.push_back(data.label(row));
    }
  }
  const std::vector<bool> labelled =
      stratified_choice(train_labels, data.num_classes(), split.labelled, derive_key(key, hash_name("labelled")));
  for (std::size_t i = 0; i < rows.train.size(); ++i) {
    if (!labelled[i]) continue;
    rows.labelled.push_back(static_cast<std::int64_t>(i));
    rows.labels.push_back(train_labels[i]);
  }
  if (rows.labelled.empty() || rows.test.empty())
    throw Error("the split leaves " + std::to_string(rows.labelled.size()) + " labelled and " +
                std::to_string(rows.test.size()) + " test rows of " + std::to_string(data.size()) +
                "; use larger fractions or more data");
  if (split.folds > 1)
    rows.fold = stratified_folds(rows.labels, data.num_classes(), static_cast<std::int32_t>(split.folds),
                                 derive_key(key, hash_name("folds")));
  return rows;
}

std::shared_ptr<const void> SplitShared::get(const std::string& key,
                                             const std::function<std::shared_ptr<const void>()>& build) {
  std::promise<std::shared_ptr<const void>> promise;
  std::shared_future<std::shared_ptr<const void>> future;
  bool builder = false;
  {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(key);
    if (it == objects_.end()) {
      future = promise.get_future().share();
      objects_.emplace(key, future);
      builder = true;
    } else {
      future = it->second;
    }
  }
  if (builder) {
    try {
      promise.set_value(build());
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return future.get();
}

namespace {

// The shape of a split's training part: the dataset's, with n its training points.
ProblemShape training_shape(const BatchRunInputs& in) {
  ProblemShape shape = in.data->shape();
  shape.n = static_cast<std::int64_t>(in.split->train.size());
  return shape;
}

// The training part as one fit sees it: all training points, and the labelled ones this fit may use.
class HostProblem final : public BatchProblem {
 public:
  using OnIteration = std::function<bool(std::int64_t, double)>;
  HostProblem(const BatchRunInputs& in, std::vector<std::int64_t> labelled, std::vector<std::int32_t> labels,
              OnIteration on_iteration)
      : in_(in), labelled_(std::move(labelled)), labels_(std::move(labels)), on_iteration_(std::move(on_iteration)) {}

  ProblemShape shape() const override { return training_shape(in_); }
  Instance point(std::int64_t i) const override { return in_.data->row(in_.split->train[static_cast<std::size_t>(i)]); }
  std::span<const std::int64_t> labelled() const override { return labelled_; }
  std::span<const std::int32_t> labels() const override { return labels_; }
  bool iteration_done(std::int64_t iteration, double objective) override {
    last_iteration_ = iteration;
    last_objective_ = objective;
    return on_iteration_(iteration, objective);
  }
  std::int64_t last_iteration() const noexcept { return last_iteration_; }
  double last_objective() const noexcept { return last_objective_; }

 protected:
  std::shared_ptr<const void> shared_object(const std::string& key,
                                            const std::function<std::shared_ptr<const void>()>& build) override {
    return in_.shared->get(in_.learner_name + '\n' + key, build);
  }

 private:
  const BatchRunInputs& in_;
  std::vector<std::int64_t> labelled_;
  std::vector<std::int32_t> labels_;
  OnIteration on_iteration_;
  std::int64_t last_iteration_ = 0;
  double last_objective_ = std::numeric_limits<double>::quiet_NaN();  // NaN until an iteration is reported
};

// One fit's fresh model: a BatchLearner, or an online Learner fitted by passes; evaluate() serves both.
class FittedModel {
 public:
  explicit FittedModel(const BatchRunInputs& in) : object_(in.make_learner()) {
    if (in.batch_learner) {
      batch_ = dynamic_cast<BatchLearner*>(object_.get());
      if (!batch_) throw Error("learner '" + in.learner_name + "' declares batch fitting but is not a BatchLearner");
    } else {
      online_ = dynamic_cast<Learner*>(object_.get());
      if (!online_) throw Error("learner '" + in.learner_name + "' does not declare batch fitting but is no Learner");
    }
  }
  BatchLearner* batch() const noexcept { return batch_; }
  Learner& online() const noexcept { return *online_; }
  void evaluate(const Instance& x, Prediction& pred) const {
    batch_ ? batch_->evaluate(x, pred) : online_->evaluate(x, pred);
  }

 private:
  std::unique_ptr<PluginObject> object_;
  BatchLearner* batch_ = nullptr;
  Learner* online_ = nullptr;
};

// Fits the model on the problem's labelled points: BatchLearner::fit, or `passes` passes of predict and
// learn (label feedback) in an order drawn from the learner's seed, one iteration per pass with the pass's
// training error as its objective. Returns false when interrupted.
bool fit(const BatchRunInputs& in, const FittedModel& model, HostProblem& problem) {
  if (auto* batch = model.batch()) {
    batch->fit(problem, in.learner_seed);
    return !(in.interrupted && (*in.interrupted)());
  }
  const ProblemShape shape = problem.shape();
  Learner& learner = model.online();
  learner.reset(shape, in.learner_seed);
  Prediction pred;
  pred.scores.assign(static_cast<std::size_t>(shape.K), 0.0);
  const auto labelled = problem.labelled();
  const auto labels = problem.labels();
  std::vector<std::int64_t> order(labelled.size());
  for (std::int64_t pass = 0; pass < in.passes; ++pass) {
    fill_stream_order(order, in.learner_seed, pass, StreamOrder::shuffle, {}, 0);
    std::int64_t mistakes = 0;
    for (const std::int64_t o : order) {
      const auto i = static_cast<std::size_t>(o);
      const Instance x = problem.point(labelled[i]);
      learner.predict(x, pred);
      mistakes += pred.predicted != labels[i];
      learner.learn(x, pred, Feedback{LabelFeedback{labels[i]}});
    }
    if (!problem.iteration_done(pass + 1, static_cast<double>(mistakes) / static_cast<double>(order.size())))
      return false;
  }
  return true;
}

}  // namespace

bool run_batch(const BatchRunInputs& in, RunRecord& record) {
  const BatchSplitRows& split = *in.split;
  const auto keep_going = [&](std::int64_t, double) { return !(in.interrupted && (*in.interrupted)()); };

  if (!split.fold.empty()) {
    // Cross-validation: fold f's labelled points stay among the training points, unlabelled, and are predicted
    // by the learner fitted on the other folds. cv_error pools the mistakes over every fold.
    const std::int32_t folds = *std::max_element(split.fold.begin(), split.fold.end()) + 1;
    std::vector<std::int64_t> mistakes(static_cast<std::size_t>(folds), 0);
    std::atomic<bool> stopped{false};
    tbb::parallel_for(0, folds, [&](std::int32_t f) {
      std::vector<std::int64_t> labelled;
      std::vector<std::int32_t> labels;
      for (std::size_t i = 0; i < split.labelled.size(); ++i)
        if (split.fold[i] != f) labelled.push_back(split.labelled[i]), labels.push_back(split.labels[i]);
      HostProblem problem(in, std::move(labelled), std::move(labels), keep_going);
      const FittedModel model(in);
      if (!fit(in, model, problem)) {
        stopped = true;
        return;
      }
      Prediction pred;
      pred.scores.assign(static_cast<std::size_t>(in.data->num_classes()), 0.0);
      for (std::size_t i = 0; i < split.labelled.size(); ++i) {
        if (split.fold[i] != f) continue;
        model.evaluate(problem.point(split.labelled[i]), pred);
        mistakes[static_cast<std::size_t>(f)] += pred.predicted != split.labels[i];
      }
    });
    if (stopped) return false;
    record.scalars.push_back(
        {"cv_error", static_cast<double>(std::accumulate(mistakes.begin(), mistakes.end(), std::int64_t{0})) /
                         static_cast<double>(split.labelled.size())});
  }

  const FittedModel model(in);
  const ProblemShape shape = training_shape(in);
  for (auto* metric : in.metrics) metric->reset(shape, 0);
  NamedCurve objective{"objective", {}, {}};
  Prediction pred;
  pred.scores.assign(static_cast<std::size_t>(shape.K), 0.0);
  const auto evaluate_on_test = [&](std::int64_t iteration, double value) {
    objective.rounds.push_back(iteration);
    objective.values.push_back(value);
    evaluate_held_out(*in.data, split.test, model, in.metrics, pred, iteration);
  };
  HostProblem problem(in, split.labelled, split.labels, [&](std::int64_t iteration, double value) {
    if (in.test_every > 0 && iteration % in.test_every == 0) evaluate_on_test(iteration, value);
    return keep_going(iteration, value);
  });
  if (!fit(in, model, problem)) return false;
  if (objective.rounds.empty() || objective.rounds.back() != problem.last_iteration())
    evaluate_on_test(problem.last_iteration(), problem.last_objective());
  record.rounds = problem.last_iteration();
  record.curves.push_back(std::move(objective));
  return true;
}

}  // namespace glimpse
