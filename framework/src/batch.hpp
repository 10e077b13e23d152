// Batch protocols (kind "batch"; the PS3VT paper's setting, docs/protocols.md): per (dataset, seed) a stratified split
// into labelled, unlabelled and test rows shared by every run; each run fits one learner on the training part
// (optionally cross-validating on the labelled rows first) and is evaluated on the test rows.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "glimpse/dataset.hpp"
#include "glimpse/interfaces.hpp"
#include "protocol.hpp"
#include "run_record.hpp"

namespace glimpse {

// One split, as row indices into the dataset; identical for every learner with the same (dataset, seed).
struct BatchSplitRows {
  std::vector<std::int64_t> train;     // dataset rows of the training points (labelled or not), ascending
  std::vector<std::int64_t> test;      // dataset rows held out, ascending
  std::vector<std::int64_t> labelled;  // indices into `train` of the labelled points, ascending
  std::vector<std::int32_t> labels;    // their labels
  std::vector<std::int32_t> fold;      // per labelled point its cross-validation fold (empty without folds)
};
// Draws the split from `key` (the (seed, dataset) stream): stratified test rows, then stratified labelled rows
// among the training rows, then stratified folds among the labelled ones.
BatchSplitRows make_batch_split(const Dataset& data, const BatchSplit& split, std::uint64_t key);

// The objects batch learners share on one split (BatchProblem::shared), built once, freed with the split's last
// run.
class SplitShared {
 public:
  std::shared_ptr<const void> get(const std::string& key, const std::function<std::shared_ptr<const void>()>& build);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const void>>> objects_;
};

// What every run on one split shares: its rows, drawn once, and the objects learners build once for it.
struct BatchSplitState {
  BatchSplitRows rows;
  SplitShared shared;
};

struct BatchRunInputs {
  const Dataset* data = nullptr;
  const BatchSplitRows* split = nullptr;
  SplitShared* shared = nullptr;
  std::string learner_name;                                     // keeps plugins' shared keys apart
  std::function<std::unique_ptr<PluginObject>()> make_learner;  // a fresh object per fit (folds, final)
  bool batch_learner = false;                                   // BatchLearner::fit, else passes of predict/learn
  std::vector<Metric*> metrics;                                 // see the final fit's test evaluations
  std::uint64_t learner_seed = 0;
  std::int64_t passes = 1;      // online learners' passes over the labelled points
  std::int64_t test_every = 0;  // iterations between test evaluations (0: at the end)
  const std::function<bool()>* interrupted = nullptr;
};

// Runs one batch run: cross-validation fits (in parallel, when the split has folds), then the final fit with
// test evaluations. Fills the record's rounds (iterations of the final fit), the `cv_error` scalar and the
// `objective` curve. Returns false when interrupted.
bool run_batch(const BatchRunInputs& inputs, RunRecord& record);

}  // namespace glimpse
