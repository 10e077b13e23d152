// Protocol parsing (JSON through Boost.PropertyTree), validation and run expansion.
#include "protocol.hpp"

#include <algorithm>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "glimpse/error.hpp"
#include "glimpse/random.hpp"
#include "param_resolution.hpp"
#include "protocol_json.hpp"

namespace glimpse {
namespace pt = boost::property_tree;

using namespace protocol_json;  // NOLINT: this file is the reader's one user

std::int64_t PluginUse::grid_size() const {
  std::int64_t size = 1;
  for (const auto& [name, values] : grid) size *= static_cast<std::int64_t>(values.size());
  return size;
}

ParamValues PluginUse::resolve(std::int64_t point, const ProblemShape* shape) const {
  // Grid point index -> one value per grid parameter; the last parameter varies fastest.
  std::vector<const RawParam*> chosen;
  for (auto it = grid.rbegin(); it != grid.rend(); ++it) {
    const auto count = static_cast<std::int64_t>(it->second.size());
    chosen.push_back(&it->second[point % count]);
    point /= count;
  }
  // The text under the protocol's name `key`: the grid point's, else the fixed one.
  const auto given = [&](const std::string& key) -> std::optional<GivenParam> {
    const RawParam* raw = nullptr;
    for (const auto& p : params)
      if (p.name == key) raw = &p;
    for (const auto* p : chosen)
      if (p->name == key) raw = p;
    if (!raw) return std::nullopt;
    return GivenParam{raw->text, raw->where};
  };
  return registry->resolve(*plugin, given, shape, where, base_dir);
}

std::string PluginUse::identity(const ParamValues& values, const ProblemShape* shape) const {
  std::string json;
  const auto add = [&](const ParamSpec& spec, const std::string& key) {
    const auto it = std::find_if(values.entries().begin(), values.entries().end(),
                                 [&](const auto& entry) { return entry.first == key; });
    if (it == values.entries().end()) return;
    std::optional<ParamValue> fallback;
    if (!spec.required) fallback = resolve_default(spec, shape);
    if (fallback && *fallback == it->second) return;
    json += (json.empty() ? "" : ",") + param_value_json(key) + ":" + param_value_json(it->second);
  };
  // A declaration's parameters under `prefix`, then each learner it wraps the same way, as PluginRegistry::resolve
  // lists them (so a wrapper of a wrapper is keyed by its innermost learner's parameters too).
  const auto add_declared = [&](const auto& self, const PluginSpec& declared, const std::string& prefix) -> void {
    for (const auto& spec : declared.params) add(spec, prefix + spec.name);
    for (const auto& spec : declared.params) {
      if (spec.type != ParamType::learner) continue;
      const LoadedPlugin& base = registry->get(values.text(prefix + spec.name), PluginKind::learner, where);
      self(self, *base.spec, prefix + spec.name + ".");
    }
  };
  add_declared(add_declared, *plugin->spec, "");
  return "{" + json + "}";
}

namespace {

// One DatasetUse per point of the transforms' grids, the chosen values moved into each transform's fixed
// parameters. The last transform's last grid parameter varies fastest.
std::vector<DatasetUse> expand_transform_grids(const DatasetUse& data) {
  std::int64_t variants = 1;
  for (const auto& t : data.transforms) variants *= t.grid_size();
  if (variants == 1 &&
      std::all_of(data.transforms.begin(), data.transforms.end(), [](const auto& t) { return t.grid.empty(); }))
    return {data};
  std::vector<DatasetUse> result;
  for (std::int64_t v = 0; v < variants; ++v) {
    DatasetUse variant = data;
    std::string json;
    std::int64_t rest = v;
    for (auto it = variant.transforms.rbegin(); it != variant.transforms.rend(); ++it) {
      std::vector<RawParam> chosen;
      for (auto g = it->grid.rbegin(); g != it->grid.rend(); ++g) {
        const auto count = static_cast<std::int64_t>(g->second.size());
        chosen.push_back(g->second[static_cast<std::size_t>(rest % count)]);
        rest /= count;
      }
      std::reverse(chosen.begin(), chosen.end());
      std::string part;
      for (const auto& c : chosen) {
        part += ",\"" + it->name() + "." + c.name + "\":" + (is_number_text(c.text) ? c.text : "\"" + c.text + "\"");
        it->params.push_back(c);
      }
      json = part + json;
      it->grid.clear();
    }
    variant.variant = "{" + json.substr(1) + "}";
    result.push_back(std::move(variant));
  }
  return result;
}

}  // namespace

namespace {
// parse_protocol's sections, in the order the file is checked (so that of several mistakes the same one is
// reported first).
class ProtocolParser {
 public:
  ProtocolParser(Reader& reader, const pt::ptree& json_root, Protocol& parsed)
      : r(reader), root(json_root), protocol(parsed), batch(parsed.batch()) {}
  void parse() {
    parse_split();
    parse_datasets();
    parse_feedback();
    parse_learners();
    parse_metrics();
    parse_seeds();
    parse_schedule();
    parse_selection();
  }

 private:
  void parse_split() {
    if (const auto* split = r.child(root, "split")) {
      if (!batch) r.fail("split", "only batch protocols (\"kind\": \"batch\") split their datasets");
      if (!is_object(*split)) r.fail("split", "expected {\"test\": FRACTION, \"labelled\": FRACTION, \"folds\": N}");
      r.only_keys(*split, "split", {"test", "labelled", "folds", "fit_transforms_on"});
      if (const auto* t = r.child(*split, "test")) protocol.split.test = parse_fraction(r, *t, "split.test", false);
      if (const auto* l = r.child(*split, "labelled"))
        protocol.split.labelled = parse_fraction(r, *l, "split.labelled", true);
      if (const auto* folds = r.child(*split, "folds")) {
        protocol.split.folds = parse_integer(r, *folds, "split.folds", 0);
        if (protocol.split.folds == 1) r.fail("split.folds", "expected 0 (no cross-validation) or at least 2, got 1");
      }
      using FitRows = BatchSplit::FitRows;
      if (const auto* fit = r.child(*split, "fit_transforms_on"))
        protocol.split.fit_transforms_on = r.choice<FitRows>(
            *fit, "split.fit_transforms_on",
            {{"training", FitRows::training}, {"labelled", FitRows::labelled}, {"all", FitRows::all}});
    }
  }

  // One dataset entry: an installed dataset or a data source, its transforms and, unless it is itself a test
  // part, an optional "test" part.
  DatasetUse dataset_entry(const pt::ptree& node, const std::string& path, bool may_have_test) {
    DatasetUse data;
    data.where = r.at(path);
    if (!is_object(node))
      r.fail(path,
             "expected {\"name\": INSTALLED_DATASET}, {\"dataset\": INSTALLED_DATASET, \"name\": NAME} or "
             "{\"source\": PLUGIN, \"params\": {...}}");
    const bool from_source = r.child(node, "source");
    std::vector<std::string> keys = from_source ? std::vector<std::string>{"name", "source", "params", "transforms"}
                                                : std::vector<std::string>{"name", "dataset", "transforms"};
    if (may_have_test) keys.push_back("test");
    if (batch) keys.push_back("labelled");
    if (from_source) {
      data.source = r.plugin_use(node, path, PluginKind::data_source, "source", keys);
      data.name = data.source.name();
      if (const auto* n = r.child(node, "name")) data.name = r.value(*n, path + ".name", "a dataset name");
      data.split_name = data.name;
    } else {
      r.only_keys(node, path, keys);
      const auto* n = r.child(node, "name");
      const auto* installed = r.child(node, "dataset");
      if (!n && !installed)
        r.fail(path, "expected \"name\" (an installed dataset, see 'glimpse datasets list') or \"source\"");
      const std::string dataset_path = path + (installed ? ".dataset" : ".name");
      data.split_name = r.value(installed ? *installed : *n, dataset_path, "an installed dataset");
      data.source = r.named_dataset(data.split_name, path, dataset_path);
      data.name = n ? r.value(*n, path + ".name", "a dataset name") : data.split_name;
    }
    if (const auto* l = r.child(node, "labelled")) data.labelled = parse_fraction(r, *l, path + ".labelled", true);
    for (const auto& [t_path, t_node] : r.list(node, "transforms", false, path))
      data.transforms.push_back(
          r.plugin_use(*t_node, t_path, PluginKind::transform, "name", {"name", "params", "grid"}));
    if (const auto* test = r.child(node, "test")) {
      data.test.push_back(dataset_entry(*test, path + ".test", false));
      for (const auto& t : data.test.front().transforms)
        if (!t.grid.empty()) r.fail(path + ".test", "a test part's transforms cannot have grids");
    }
    return data;
  }

  void parse_datasets() {
    std::set<std::string> dataset_names;
    for (const auto& [path, node] : r.list(root, "datasets", true)) {
      DatasetUse data = dataset_entry(*node, path, true);
      if (batch && !data.test.empty())
        r.fail(path + ".test", "a batch protocol holds out its test rows by \"split\"; remove \"test\"");
      if (!dataset_names.insert(data.name).second)
        r.fail(path + ".name", "dataset name '" + data.name + "' is used twice; give each a distinct \"name\"");
      for (auto& variant : expand_transform_grids(data)) protocol.datasets.push_back(std::move(variant));
    }
  }

  void parse_feedback() {
    const pt::ptree* oracle = r.child(root, "oracle");
    if (batch) {
      for (const char* key : {"oracle", "query_rule"})
        if (r.child(root, key))
          r.fail(key, "a batch protocol has no " + std::string(key) +
                          ": the labelled rows of its \"split\" keep their labels");
    } else {
      if (!oracle) r.fail("", "missing \"oracle\" (the feedback oracle, e.g. {\"name\": \"full\"})");
      protocol.oracle = r.plugin_use(*oracle, "oracle", PluginKind::oracle, "name", {"name", "params"});
      if (const auto* rule = r.child(root, "query_rule"))
        protocol.query_rule =
            r.plugin_use(*rule, "query_rule", PluginKind::query_rule, "name", {"name", "params", "grid"});
    }
  }

  void parse_learners() {
    // Reports tell learners apart by label: two entries of one label were read as one learner, their runs pooled as
    // extra seeds of one grid point (the same entry twice: "seeds 4" of 2) or as grid points to choose between.
    std::set<std::string> labels;
    const auto label_once = [&](const PluginUse& learner, const std::string& path) {
      if (!labels.insert(learner.output_name).second)
        r.fail(path, "learner label '" + learner.output_name + "' is used twice; give one a distinct \"as\"");
    };
    for (const auto& [path, node] : r.list(root, "learners", true)) {
      if (batch) {
        PluginUse learner = r.plugin_use(*node, path, PluginKind::learner, "name", {"name", "params", "grid", "as"});
        label_once(learner, path);
        const PluginSpec& spec = *learner.plugin->spec;
        if (!spec.batch && !spec.accepts.contains(FeedbackKind::label))
          r.fail(path + ".name", "learner '" + spec.name +
                                     "' can be fitted neither in batch nor by passes over labelled rows (it does not "
                                     "accept label feedback)");
        protocol.learners.push_back(std::move(learner));
        protocol.learner_oracles.emplace_back();
        protocol.learner_query_rules.emplace_back();
        continue;
      }
      PluginUse learner = r.plugin_use(*node, path, PluginKind::learner, "name",
                                       {"name", "params", "grid", "oracle", "query_rule", "as"});
      label_once(learner, path);
      if (learner.plugin->spec->batch && learner.plugin->spec->accepts.empty())
        r.fail(path + ".name",
               "learner '" + learner.name() +
                   "' is fitted in batch protocols only (\"kind\": \"batch\"); it does not learn online");
      // A learner may have an oracle of its own (e.g. exact labels for a baseline beside candidate-set learners).
      std::optional<PluginUse> own_oracle;
      if (const auto* o = r.child(*node, "oracle"))
        own_oracle = r.plugin_use(*o, path + ".oracle", PluginKind::oracle, "name", {"name", "params"});
      const PluginUse& learner_oracle = own_oracle ? *own_oracle : protocol.oracle;
      const FeedbackKind produced = learner_oracle.plugin->spec->produces;
      const PluginSpec& spec = *learner.plugin->spec;
      if (!spec.accepts.contains(produced)) {
        std::vector<std::string> accepted;
        for (auto k : spec.accepts.kinds()) accepted.emplace_back(feedback_kind_name(k));
        r.fail(path + ".name", "learner '" + spec.name + "' accepts " + join(accepted) + " feedback, but oracle '" +
                                   learner_oracle.name() + "' produces " + std::string(feedback_kind_name(produced)) +
                                   " feedback");
      }
      // ... and a query rule of its own (e.g. the passive baseline, or one rule per learner in a comparison).
      std::optional<PluginUse> own_rule;
      if (const auto* q = r.child(*node, "query_rule"))
        own_rule = r.plugin_use(*q, path + ".query_rule", PluginKind::query_rule, "name", {"name", "params", "grid"});
      protocol.learners.push_back(std::move(learner));
      protocol.learner_oracles.push_back(std::move(own_oracle));
      protocol.learner_query_rules.push_back(std::move(own_rule));
    }
  }

  void parse_metrics() {
    for (const auto& [path, node] : r.list(root, "metrics", true)) {
      PluginUse metric = r.plugin_use(*node, path, PluginKind::metric, "name", {"name", "params", "as"});
      if (!metric_names.insert(metric.output_name).second)
        r.fail(path, "metric output name '" + metric.output_name + "' is used twice; rename one with \"as\"");
      protocol.metrics.push_back(std::move(metric));
    }
  }

  void parse_seeds() {
    if (const auto* seeds = r.child(root, "seeds")) {
      if (is_list(*seeds)) {
        int i = 0;
        for (const auto& item : *seeds) {
          const auto seed = parse_integer(r, item.second, "seeds[" + std::to_string(i++) + "]", 0);
          if (std::find(protocol.seeds.begin(), protocol.seeds.end(), seed) != protocol.seeds.end())
            r.fail("seeds", "seed " + std::to_string(seed) + " is listed twice");
          protocol.seeds.push_back(static_cast<std::uint64_t>(seed));
        }
      } else {
        const auto count = parse_integer(r, *seeds, "seeds", 1);
        for (std::int64_t s = 0; s < count; ++s) protocol.seeds.push_back(static_cast<std::uint64_t>(s));
      }
    } else {
      protocol.seeds = {0};
    }
  }

  // Passes, held-out tests, stream order, rounds and trace.
  void parse_schedule() {
    if (const auto* passes = r.child(root, "passes")) protocol.passes = parse_integer(r, *passes, "passes", 1);
    if (const auto* every = r.child(root, "test_every")) {
      protocol.test_every = parse_integer(r, *every, "test_every", 0);
      if (!batch && std::none_of(protocol.datasets.begin(), protocol.datasets.end(),
                                 [](const auto& d) { return !d.test.empty(); }))
        r.fail("test_every", "no dataset has a \"test\" part to evaluate on");
    }
    if (const auto* order = r.child(root, "order"))
      protocol.order = r.choice<StreamOrder>(*order, "order",
                                             {{"shuffle", StreamOrder::shuffle},
                                              {"file", StreamOrder::file},
                                              {"by_class", StreamOrder::by_class},
                                              {"interleaved", StreamOrder::interleaved},
                                              {"class_balanced", StreamOrder::class_balanced},
                                              {"with_replacement", StreamOrder::with_replacement}});
    if (const auto* rounds = r.child(root, "rounds")) {
      if (protocol.order != StreamOrder::with_replacement)
        r.fail("rounds", "only with \"order\": \"with_replacement\" (other orders visit each row once per pass)");
      protocol.rounds = parse_integer(r, *rounds, "rounds", 1);
    }
    if (const auto* trace = r.child(root, "trace"))
      protocol.trace_rounds = r.choice<bool>(*trace, "trace", {{"rounds", true}, {"curves", false}});
  }

  void parse_selection() {
    // Cross-validated batch protocols choose, on every split, the grid point of least cross-validation error.
    const bool cross_validates = batch && protocol.split.folds > 1;
    protocol.selection.metric = protocol.metrics.front().output_name;
    if (cross_validates) protocol.selection = {"cv_error", false, true};
    const pt::ptree* goal = nullptr;
    if (const auto* selection = r.child(root, "selection")) {
      if (!is_object(*selection)) r.fail("selection", "expected {\"metric\": NAME, \"goal\": \"max\" or \"min\"}");
      r.only_keys(*selection, "selection", {"metric", "goal", "per_seed"});
      if (const auto* m = r.child(*selection, "metric")) {
        protocol.selection.metric = r.value(*m, "selection.metric", "a metric output name");
        const bool known = (cross_validates && protocol.selection.metric == "cv_error") ||
                           metric_producing(protocol.selection.metric) != nullptr;
        if (!known)
          r.fail("selection.metric", "'" + protocol.selection.metric + "' is not produced by any metric; metrics: " +
                                         join({metric_names.begin(), metric_names.end()}));
      }
      goal = r.child(*selection, "goal");
      if (const auto* p = r.child(*selection, "per_seed"))
        protocol.selection.per_seed = r.choice<bool>(*p, "selection.per_seed", {{"true", true}, {"false", false}});
    }
    if (goal) {
      protocol.selection.maximize = r.choice<bool>(*goal, "selection.goal", {{"max", true}, {"min", false}});
      return;
    }
    if (cross_validates && protocol.selection.metric == "cv_error") return;
    // No goal given: the way the metric plugin declares better. A metric that declares none leaves the choice of a
    // grid point a guess (for a count of queries, either end may be meant), so a grid needs the goal written.
    const Better better = declared_better(protocol.selection.metric);
    if (better != Better::unknown) {
      protocol.selection.maximize = better == Better::higher;
      return;
    }
    protocol.selection.maximize = !batch;
    bool grid = false;
    for (std::int32_t l = 0; l < static_cast<std::int32_t>(protocol.learners.size()); ++l)
      grid = grid || protocol.grid_points(l) > 1;
    if (grid)
      r.fail("selection", "which grid point is best is not known: '" + protocol.selection.metric +
                              "' comes from a metric that does not declare whether higher or lower is better; add "
                              "\"selection\": {\"metric\": \"" + protocol.selection.metric +
                              "\", \"goal\": \"max\"} (or \"min\")");
  }

  // The metric entry whose values include `output` (its output name, or that name and a suffix; the longest such
  // name); null when none does.
  const PluginUse* metric_producing(const std::string& output) const {
    const PluginUse* producer = nullptr;
    for (const auto& metric : protocol.metrics)
      if ((output == metric.output_name || output.rfind(metric.output_name + "_", 0) == 0) &&
          (!producer || metric.output_name.size() > producer->output_name.size()))
        producer = &metric;
    return producer;
  }

  // What the metric producing `output` declares of its values; unknown for a learner's own values ("learner_...").
  Better declared_better(const std::string& output) const {
    const PluginUse* producer = metric_producing(output);
    return producer ? producer->plugin->spec->better : Better::unknown;
  }

  Reader& r;
  const pt::ptree& root;
  Protocol& protocol;
  const bool batch;
  std::set<std::string> metric_names;
};
}  // namespace

Protocol parse_protocol(const std::string& text, const std::string& file, const std::filesystem::path& base_dir,
                        const PluginRegistry& registry) {
  pt::ptree root;
  try {
    std::istringstream in(text);
    pt::read_json(in, root);
  } catch (const pt::json_parser_error& e) {
    throw Error(file + ":" + std::to_string(e.line()), "invalid JSON: " + e.message());
  }
  Reader r(file, base_dir, registry);
  if (!is_object(root)) r.fail("", "expected a JSON object at the top level");
  r.only_keys(root, "",
              {"name", "description", "kind", "datasets", "oracle", "query_rule", "learners", "metrics", "seeds",
               "passes", "order", "rounds", "selection", "trace", "test_every", "split", "output"});

  Protocol protocol;
  protocol.file = file;
  protocol.text = text;
  if (const auto* n = r.child(root, "name")) protocol.name = r.value(*n, "name", "a name");
  if (const auto* k = r.child(root, "kind"))
    protocol.kind = r.choice<std::string>(*k, "kind", {{"online", "online"}, {"batch", "batch"}});
  ProtocolParser(r, root, protocol).parse();
  if (const auto* output = r.child(root, "output")) protocol.output = r.value(*output, "output", "a file name");

  pt::ptree canonical = root;
  canonical.erase("output");
  std::ostringstream out;
  pt::write_json(out, canonical, false);
  protocol.canonical = out.str();
  protocol.hash = hash_name(protocol.canonical);
  return protocol;
}

Protocol load_protocol_file(const std::filesystem::path& path, const PluginRegistry& registry) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string(), "cannot open the protocol file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_protocol(text.str(), path.string(), path.parent_path(), registry);
}

}  // namespace glimpse
