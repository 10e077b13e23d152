// glimpse plugins and glimpse describe: what can be loaded, and a plugin's declaration.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"
#include "glimpse/params.hpp"
#include "glimpse/plugin.hpp"
#include "plugin_registry.hpp"
#include "table_export.hpp"
#include "text_table.hpp"

namespace glimpse::cli {

namespace {

std::string bound_json(const std::optional<ParamBound>& bound) {
  if (!bound) return "null";
  return "{\"value\": " + param_value_json(ParamValue(bound->value)) + ", \"open\": " + (bound->open ? "true" : "false") +
         "}";
}

// A plugin's whole parameter declaration: what a results page's fingerprint covers, since a changed default or
// range can move a number (docs/reproducing.md).
std::string params_json(const PluginSpec& spec) {
  std::string out = "[";
  for (const auto& p : spec.params) {
    out += std::string(out.size() > 1 ? ", " : "") + "{\"name\": " + json_text(p.name) + ", \"type\": " +
           json_text(p.type_name()) + ", \"default\": " + json_text(p.default_value) +
           ", \"required\": " + (p.required ? "true" : "false") + ", \"lower\": " + bound_json(p.lower) +
           ", \"upper\": " + bound_json(p.upper) + ", \"choices\": [";
    for (std::size_t i = 0; i < p.choices.size(); ++i) out += (i ? ", " : "") + json_text(p.choices[i]);
    out += "]}";
  }
  return out + "]";
}

// Which way a metric's values are better, as --json and describe print it.
const char* better_name(glimpse::Better better) {
  switch (better) {
    case glimpse::Better::higher:
      return "higher";
    case glimpse::Better::lower:
      return "lower";
    case glimpse::Better::unknown:
      break;
  }
  return "unknown";
}

}  // namespace

int command_plugins(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse plugins: lists loadable plugins and any library that was refused\n\nOptions");
  options.add_options()("help,h", "show this help")(
      "json",
      "one JSON object per line: name, kind, version, revision (arithmetic revision), file, params (each "
      "parameter's name, type, default, required, lower and upper bounds, choices) and better (metrics: which way "
      "their values are better, higher, lower or unknown)");
  const auto vm = parse(args, options, {});
  if (vm.count("help")) {
    std::cout << options << '\n';
    return 0;
  }
  const auto registry = glimpse::PluginRegistry::discover();
  if (vm.count("json")) {
    for (const auto* p : registry.plugins())
      std::cout << "{\"name\": " << json_text(p->spec->name) << ", \"kind\": \""
                << glimpse::plugin_kind_name(p->spec->kind) << "\", \"version\": " << json_text(p->spec->version)
                << ", \"revision\": " << p->spec->revision << ", \"file\": " << json_text(p->file.string())
                << ", \"params\": " << params_json(*p->spec) << ", \"better\": \"" << better_name(p->spec->better)
                << "\"}\n";
    for (const auto& problem : registry.problems()) std::cerr << "not loaded: " << problem << '\n';
    return 0;
  }
  glimpse::TextTable table({"kind", "name", "version", "revision", "summary"});
  for (const auto* p : registry.plugins())
    table.add_row({std::string(glimpse::plugin_kind_name(p->spec->kind)), p->spec->name, p->spec->version,
                   std::to_string(p->spec->revision), p->spec->summary});
  table.print(std::cout);
  std::cout << "\nsearched: ";
  for (const auto& dir : glimpse::PluginRegistry::default_search_path()) std::cout << dir.string() << "  ";
  std::cout << '\n';
  for (const auto& problem : registry.problems()) std::cerr << "not loaded: " << problem << '\n';
  return 0;
}

int command_describe(const std::vector<std::string>& args) {
  po::options_description options("glimpse describe NAME: a plugin's description and parameters\n\nOptions");
  options.add_options()("help,h", "show this help")("name", po::value<std::string>(), "plugin name");
  po::positional_options_description positional;
  positional.add("name", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"name"});
  if (exit_status) return *exit_status;
  const auto registry = glimpse::PluginRegistry::discover();
  const std::string name = vm["name"].as<std::string>();
  const glimpse::LoadedPlugin* plugin = registry.find(name);
  if (!plugin) plugin = registry.member(name);  // a family's member: the family's reason when there is none
  if (!plugin) {
    std::string names;
    for (const auto* p : registry.plugins()) names += (names.empty() ? "" : ", ") + p->spec->name;
    throw glimpse::Error("unknown plugin '" + name + "'; available: " + names);
  }
  const auto& spec = *plugin->spec;
  std::cout << spec.name << " (" << glimpse::plugin_kind_name(spec.kind) << ", version " << spec.version
            << ", arithmetic revision " << spec.revision << ")\n"
            << "  " << spec.summary << '\n';
  if (!spec.reference.empty()) std::cout << "  reference: " << spec.reference << '\n';
  if (spec.kind == glimpse::PluginKind::learner) {
    if (!spec.accepts.empty()) {
      std::cout << "  accepts feedback:";
      for (auto k : spec.accepts.kinds()) std::cout << ' ' << glimpse::feedback_kind_name(k);
      std::cout << '\n';
    }
    if (spec.batch)
      std::cout << "  fitted in batch protocols (\"kind\": \"batch\")" << (spec.accepts.empty() ? " only" : "") << '\n';
  }
  if (spec.kind == glimpse::PluginKind::metric)
    std::cout << "  better: " << better_name(spec.better)
              << (spec.better == glimpse::Better::unknown ? " (a protocol choosing among grid points by it gives "
                                                            "selection.goal)"
                                                          : "")
              << '\n';
  if (spec.kind == glimpse::PluginKind::oracle)
    std::cout << "  produces feedback: " << glimpse::feedback_kind_name(spec.produces) << '\n';
  std::cout << "  file: " << plugin->file.string() << "\n\n";
  if (spec.params.empty()) {
    std::cout << "no parameters\n";
    return 0;
  }
  glimpse::TextTable table({"parameter", "type", "default", "allowed", "meaning"});
  for (const auto& p : spec.params)
    table.add_row({p.name, p.type_name(), p.required ? "(required)" : p.default_value, p.expectation(), p.doc});
  table.print(std::cout);
  return 0;
}

}  // namespace glimpse::cli
