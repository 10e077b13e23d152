// Planning a sweep: every dataset loaded and every value resolved before any run starts; the run list, its
// shards, and how messages name a run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/dataset.hpp"
#include "glimpse/params.hpp"
#include "prepared_dataset.hpp"
#include "protocol.hpp"
#include "shard.hpp"

namespace glimpse {

// One run: learner x grid point x dataset x seed. A grid point is a point of the learner's grid crossed with
// its query rule's grid (the rule's grid varies fastest).
struct RunSpec {
  std::int64_t index = 0;
  std::string id;  // zero-padded index, the run's group name in the trace
  std::int32_t dataset = 0;
  std::int32_t learner = 0;
  std::int64_t grid_point = 0;
  std::uint64_t seed = 0;
  ParamValues learner_params;     // resolved for the dataset's shape
  ParamValues query_rule_params;  // likewise; empty when the learner's runs have no query rule
  std::string learner_identity;   // PluginUse::identity of learner_params: what keys the learner's random stream
};

// Every run in a stable order (dataset, learner, grid point, seed), with parameters resolved for each
// dataset's shape; out-of-range values stop everything before any run starts. A grid point whose values resolve to
// those of an earlier point of the same learner and dataset (an expression of K, d, n equal to a listed value) is run
// once: its runs are left out, and `notes` (when given) says which point repeated which.
std::vector<RunSpec> expand_runs(const Protocol& protocol, const std::vector<ProblemShape>& shapes,
                                 std::vector<std::string>* notes = nullptr);

// A run's id, its group name in the trace: the index zero-padded to max(6, digits of the run count).
std::string run_id(std::int64_t index, std::int64_t total_runs);

// The output file a protocol writes to when no --output is given.
std::filesystem::path default_output(const Protocol& protocol);

// A protocol's run list (datasets are loaded to resolve parameters) with each run's expected cost,
// passes x n x K x d, which sharding balances.
struct RunList {
  std::vector<RunSpec> runs;
  std::vector<double> costs;
  std::vector<std::string> notes;  // what expansion tells the user (a repeated grid point, run once)
};
RunList list_runs(const Protocol& protocol, PreparationCache* cache = nullptr);

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

struct SweepPlan {
  std::vector<DatasetPlan> datasets;
  RunList list;
};
// Loads every dataset once (through `cache`, when given) and resolves every value, so that nothing is left to fail
// before runs start.
SweepPlan plan_sweep(const Protocol& protocol, PreparationCache* cache = nullptr);

// "run 000017 (learner 'x', dataset 'y', seed 3, params {...})", as messages name runs.
std::string describe_run(const Protocol& protocol, const RunSpec& run);

// The runs of `protocol` that `shard` holds, in index order (all of them for the whole protocol).
std::vector<const RunSpec*> shard_runs(const RunList& list, const Shard& shard);

}  // namespace glimpse
