// Planning a sweep.
#include "sweep_plan.hpp"

#include <algorithm>

#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"

namespace glimpse {

std::vector<RunSpec> expand_runs(const Protocol& protocol, const std::vector<ProblemShape>& shapes,
                                 std::vector<std::string>* notes) {
  std::vector<RunSpec> runs;
  for (std::int32_t d = 0; d < static_cast<std::int32_t>(protocol.datasets.size()); ++d) {
    for (std::int32_t l = 0; l < static_cast<std::int32_t>(protocol.learners.size()); ++l) {
      const PluginUse& learner = protocol.learners[l];
      const PluginUse* rule = protocol.query_rule_for(l);
      const std::int64_t rule_points = rule ? rule->grid_size() : 1;
      // The resolved values of the points run so far: a point equal to one of them is not run again.
      std::vector<std::pair<std::string, std::int64_t>> seen;
      for (std::int64_t g = 0; g < learner.grid_size(); ++g) {
        const ParamValues params = learner.resolve(g, &shapes[d]);
        const std::string identity = learner.identity(params, &shapes[d]);
        for (std::int64_t q = 0; q < rule_points; ++q) {
          const ParamValues rule_params = rule ? rule->resolve(q, &shapes[d]) : ParamValues{};
          const std::string values = params.to_json() + " " + rule_params.to_json();
          const auto earlier = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == values; });
          if (earlier != seen.end()) {
            const std::string note = learner.where + " (" + learner.output_name + "): on dataset '" +
                                     protocol.datasets[static_cast<std::size_t>(d)].name + "' grid point " +
                                     std::to_string(g * rule_points + q) + " has the values of grid point " +
                                     std::to_string(earlier->second) + " (" + values + "): run once";
            if (notes && std::find(notes->begin(), notes->end(), note) == notes->end()) notes->push_back(note);
            continue;
          }
          seen.emplace_back(values, g * rule_points + q);
          for (const auto seed : protocol.seeds) {
            RunSpec run;
            run.index = static_cast<std::int64_t>(runs.size());
            run.dataset = d;
            run.learner = l;
            run.grid_point = g * rule_points + q;
            run.seed = seed;
            run.learner_params = params;
            run.query_rule_params = rule_params;
            run.learner_identity = identity;
            runs.push_back(std::move(run));
          }
        }
      }
    }
  }
  for (auto& run : runs) run.id = run_id(run.index, static_cast<std::int64_t>(runs.size()));
  return runs;
}

std::string run_id(std::int64_t index, std::int64_t total_runs) {
  const std::size_t width = std::max<std::size_t>(6, std::to_string(total_runs).size());
  const std::string digits = std::to_string(index);
  return std::string(width - std::min(width, digits.size()), '0') + digits;
}
namespace fs = std::filesystem;

fs::path default_output(const Protocol& protocol) {
  if (!protocol.output.empty()) return protocol.output;
  return fs::path("runs") / ((protocol.name.empty() ? std::string("protocol") : protocol.name) + ".h5");
}

SweepPlan plan_sweep(const Protocol& protocol, PreparationCache* cache) {
  SweepPlan sweep;
  std::vector<ProblemShape> shapes;
  for (auto& data : prepare_datasets(protocol, cache)) {
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
      for (std::int32_t l = 0; l < static_cast<std::int32_t>(protocol.learners.size()); ++l) {
        const PluginUse& oracle = protocol.oracle_for(l);
        plan.oracle_params.push_back(oracle.resolve(0, &plan.shape));
        // What the oracle says of itself on this data (once per oracle entry and dataset).
        for (const auto& note : oracle.create<FeedbackOracle>(plan.oracle_params.back())->notes(plan.shape)) {
          const std::string text = oracle.where + " (" + oracle.name() + ") on dataset '" +
                                   protocol.datasets[sweep.datasets.size()].name + "': " + note;
          if (std::find(sweep.list.notes.begin(), sweep.list.notes.end(), text) == sweep.list.notes.end())
            sweep.list.notes.push_back(text);
        }
      }
    for (const auto& metric : protocol.metrics) plan.metric_params.push_back(metric.resolve(0, &plan.shape));
    shapes.push_back(plan.shape);
    sweep.datasets.push_back(std::move(plan));
  }
  sweep.list.runs = expand_runs(protocol, shapes, &sweep.list.notes);
  for (const auto& run : sweep.list.runs) {
    const ProblemShape& shape = shapes[static_cast<std::size_t>(run.dataset)];
    sweep.list.costs.push_back(static_cast<double>(protocol.passes) *
                               static_cast<double>(protocol.rounds_per_pass(shape.n)) * static_cast<double>(shape.K) *
                               static_cast<double>(shape.d));
  }
  return sweep;
}

RunList list_runs(const Protocol& protocol, PreparationCache* cache) { return plan_sweep(protocol, cache).list; }

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

}  // namespace glimpse
