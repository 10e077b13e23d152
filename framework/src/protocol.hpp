// Protocol files: parsing, whole-protocol validation against plugin declarations, and run expansion.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/dataset.hpp"
#include "glimpse/params.hpp"
#include "plugin_registry.hpp"
#include "stream_order.hpp"

namespace glimpse {

// A parameter as the protocol wrote it, with its location for messages.
struct RawParam {
  std::string name;
  std::string text;
  std::string where;  // "file.json: learners[1].params.beta"
};

// One plugin named in a protocol: which, where, and its parameter text (not yet resolved).
struct PluginUse {
  const LoadedPlugin* plugin = nullptr;
  const PluginRegistry* registry = nullptr;  // finds the plugins that `learner` parameters name
  std::string where;                         // "file.json: learners[1]"
  std::vector<RawParam> params;              // fixed values
  // Learners, query rules and transforms: parameter name -> one entry per grid value, in file order.
  std::vector<std::pair<std::string, std::vector<RawParam>>> grid;
  // Metrics and learners: "as", defaulting to the plugin name (a metric's output name, a learner's label in
  // reports, so two entries of one plugin, e.g. with different oracles, stay apart).
  std::string output_name;
  std::filesystem::path base_dir;  // the protocol's folder: path parameters are relative to it

  const std::string& name() const { return plugin->spec->name; }
  std::int64_t grid_size() const;
  // Resolved parameters for grid point `point` (declaration order, defaults filled in). Throws Error at the
  // offending value's location when it is out of range for this shape.
  ParamValues resolve(std::int64_t point, const ProblemShape* shape) const;
  // What of `values` (resolve's, for `shape`) defines the plugin's arithmetic beyond its declaration: the parameters,
  // wrapped learners' included, whose value differs from their declared default, as JSON ({"beta":0.5}). Declaring a
  // new parameter whose default keeps the old behaviour leaves it unchanged.
  std::string identity(const ParamValues& values, const ProblemShape* shape) const;
  // A new object of the plugin, made from `values`, as the interface of its kind (Learner, Metric, ...).
  template <class Kind>
  std::unique_ptr<Kind> create(const ParamValues& values) const {
    return as_kind<Kind>(plugin->create(values), where,
                         "plugin '" + name() + "' (" + plugin->file.string() + ") created an object that is not a " +
                             std::string(plugin_kind_name(plugin->spec->kind)));
  }
};

struct DatasetUse {
  std::string name;
  std::string where;
  // The data source: as written ({"source": ...}), or the one serving installed datasets by name for {"name":
  // "vehicle"} and {"dataset": "vehicle", "name": ...} (PluginSpec::serves_dataset_names).
  PluginUse source;
  // The name a batch split is keyed by: the installed dataset when the entry names one, else `name` (e.g. a sweep
  // over labelled rates: entries of one installed dataset share their test rows, and a larger rate labels a superset).
  std::string split_name;
  std::vector<PluginUse> transforms;
  // A dataset entry whose transforms have grids becomes one DatasetUse per grid point ("variant"), all with
  // the same name (so their runs share orders and oracle draws); `variant` records the point, e.g.
  // {"rbf_support.g":0.1}, and is empty when there is no transform grid.
  std::string variant;
  // The held-out part ("test": {...}), at most one entry: its runs' learners are evaluated on it. Its per-seed
  // transforms draw from this dataset's streams (see docs/protocols.md).
  std::vector<DatasetUse> test;
  // Batch protocols: this dataset's labelled fraction, overriding the split's.
  std::optional<double> labelled;
};

struct SelectionRule {
  std::string metric;
  bool maximize = true;
  // Choose the grid point separately for every seed (as cross-validation does, on each split) instead of by
  // the mean over seeds.
  bool per_seed = false;
};

// How a batch protocol splits each dataset for each seed (the PS3VT paper's protocol): a stratified `test` fraction is
// held out, a stratified `labelled` fraction of the rest keeps its labels, the other training rows are
// unlabelled. With `folds` > 1 every run also cross-validates on the labelled rows (stratified folds; the
// held-out fold stays among the training points, unlabelled) and records `cv_error`.
struct BatchSplit {
  double test = 0.3;
  double labelled = 0.3;
  std::int64_t folds = 0;
  // The rows transforms with fitted statistics (standardize, minmax_scale) learn from: the training part
  // (labelled and unlabelled rows; the default), the labelled rows only, or every row, test rows included.
  enum class FitRows { training, labelled, all } fit_transforms_on = FitRows::training;
};

struct Protocol {
  std::string file;        // as named to the user
  std::string text;        // the file's text, stored in traces
  std::string canonical;   // normalised JSON without the output name
  std::uint64_t hash = 0;  // of `canonical`: a trace file belongs to exactly one protocol
  std::string name;
  std::string kind = "online";  // or "batch"
  bool batch() const noexcept { return kind == "batch"; }
  BatchSplit split;  // batch protocols only
  std::vector<DatasetUse> datasets;
  PluginUse oracle;                     // online protocols only (a batch protocol's labels come from its split)
  std::optional<PluginUse> query_rule;  // the protocol's: decides, each round, whether the oracle is asked
  std::vector<PluginUse> learners;
  std::vector<std::optional<PluginUse>> learner_oracles;  // per learner: its own oracle, if it names one
  // The oracle a learner's runs use: its own, else the protocol's.
  const PluginUse& oracle_for(std::int32_t learner) const {
    const auto& own = learner_oracles[static_cast<std::size_t>(learner)];
    return own ? *own : oracle;
  }
  std::vector<std::optional<PluginUse>> learner_query_rules;  // per learner: its own query rule, if it names one
  // The query rule a learner's runs use: its own, else the protocol's, else none (every round is queried).
  const PluginUse* query_rule_for(std::int32_t learner) const {
    const auto& own = learner_query_rules[static_cast<std::size_t>(learner)];
    return own ? &*own : query_rule ? &*query_rule : nullptr;
  }
  // A learner's grid points: its own grid's times its query rule's.
  std::int64_t grid_points(std::int32_t learner) const {
    const PluginUse* rule = query_rule_for(learner);
    return learners[static_cast<std::size_t>(learner)].grid_size() * (rule ? rule->grid_size() : 1);
  }
  std::vector<PluginUse> metrics;
  std::vector<std::uint64_t> seeds;
  std::int64_t passes = 1;  // batch protocols: online learners' passes over the labelled rows
  std::int64_t rounds = 0;  // rounds per pass with order with_replacement; 0: n
  std::int64_t rounds_per_pass(std::int64_t n) const { return rounds > 0 ? rounds : n; }
  StreamOrder order = StreamOrder::shuffle;  // "order"
  bool trace_rounds = true;                  // "trace": "rounds" (default) or "curves"
  std::int64_t test_every = 0;  // rounds (batch: fit iterations) between held-out evaluations (0: only at the end)
  SelectionRule selection;
  std::string output;
};

// Parses and validates everything that can be checked before data is loaded: structure, plugin names
// and kinds, parameter names and literal values, feedback compatibility. One Error per problem, naming
// `file` and the path inside it.
Protocol parse_protocol(const std::string& text, const std::string& file, const std::filesystem::path& base_dir,
                        const PluginRegistry& registry);
Protocol load_protocol_file(const std::filesystem::path& path, const PluginRegistry& registry);

}  // namespace glimpse
