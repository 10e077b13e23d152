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
