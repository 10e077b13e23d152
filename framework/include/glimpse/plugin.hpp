// The plugin boundary: one extern "C" entry point per shared library, returning a plain struct whose
// first member is the plugin API version. The host reads that version before touching anything else.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "glimpse/error.hpp"
#include "glimpse/params.hpp"
#include "glimpse/prediction.hpp"

// Bump when PluginEntry, PluginSpec or any interface handed across the boundary (Learner, Dataset, ...)
// changes layout or meaning, or a function plugins may call leaves libglimpse (13: glimpse/dataset_file.hpp's, now
// in libglimpse_dataset_file; 14: FeedbackOracle::notes; 15: LabelBuyer, RunReporter and BatchLearner; 16: MetricResults
// holds glimpse/named_results.hpp's types, `name` where it said `suffix`). The host refuses plugins built against
// another value.
#define GLIMPSE_PLUGIN_API_VERSION 17

// Types whose identity must be shared between the host and plugins built with -fvisibility=hidden.
#define GLIMPSE_API __attribute__((visibility("default")))

namespace glimpse {

enum class PluginKind : std::uint8_t { learner, oracle, query_rule, metric, data_source, transform };
std::string_view plugin_kind_name(PluginKind kind) noexcept;

// What a plugin declares about itself; `glimpse describe NAME` prints it and validation checks against it.
// Metrics: which way is better for every value a metric reports (its output name and each suffix), so that a
// protocol without a selection goal chooses the right end of a grid. unknown: neither way (a count of queries), or
// values of both kinds; such a protocol must give "goal".
enum class Better { unknown, higher, lower };

struct PluginSpec {
  std::string name;  // lower_snake_case, unique among loaded plugins
  PluginKind kind = PluginKind::learner;
  std::string version = "1.0";  // the plugin's own version, recorded in traces
  // Arithmetic revision: bump it whenever the plugin's numbers may change for the same inputs (a new update
  // order, another summation, a fixed bug, a new parameter: a run's random streams are keyed by its full
  // parameter set, so a randomised learner's numbers move too). Results pages record the revisions they were
  // made with, and `glimpse reproduce --list` marks a page stale when one differs; a learner's golden test
  // forces the bump (for a new parameter it cannot: its streams there do not depend on the parameters).
  std::uint32_t revision = 1;
  std::string summary;    // one line
  std::string reference;  // paper and section, where one applies
  std::vector<ParamSpec> params;
  FeedbackKinds accepts;                       // learners: feedback kinds they can learn from
  bool batch = false;                          // learners: a BatchLearner, fitted whole in batch protocols
  FeedbackKind produces = FeedbackKind::none;  // oracles: the kind they return
  // Data sources: this one serves a protocol's dataset entries written by name ({"name": X}, or {"dataset": X,
  // "name": N}), with X as its `dataset` parameter. At most one loaded plugin may (the `installed` data source).
  bool serves_dataset_names = false;
  Better better = Better::unknown;  // metrics: which way their values are better (see Better)
};

// Base of every object a plugin creates. The host deletes it through this virtual destructor, while the
// plugin's library stays loaded (plugins are never unloaded during a process).
class GLIMPSE_API PluginObject {
 public:
  virtual ~PluginObject();
};

namespace detail {
// Stores parameter `name`'s value from `values` in `target`, converted as ParamSpec::into describes.
template <class Field>
void store_param(Field& target, const std::string& name, ParamType type, const std::vector<std::string>& choices,
                 const ParamValues& values) {
  if constexpr (std::is_same_v<Field, bool>) {
    target = values.boolean(name);
  } else if constexpr (std::is_enum_v<Field>) {
    const auto chosen = std::find(choices.begin(), choices.end(), values.text(name));
    target = static_cast<Field>(chosen - choices.begin());
  } else if constexpr (std::is_arithmetic_v<Field>) {
    target =
        type == ParamType::integer ? static_cast<Field>(values.integer(name)) : static_cast<Field>(values.real(name));
  } else if constexpr (std::is_same_v<Field, std::filesystem::path>) {
    target = values.path(name);
  } else if constexpr (requires { typename Field::element_type; }) {  // a `learner` parameter: the wrapped plugin
    std::unique_ptr<PluginObject> created = values.create(name);
    auto* typed = dynamic_cast<typename Field::element_type*>(created.get());
    if (!typed) throw Error("parameter " + name, "names a plugin of another kind");
    created.release();
    target.reset(typed);
  } else {
    static_assert(std::is_same_v<Field, std::string>,
                  "into(): a number, bool, enum, std::string, path or std::unique_ptr (learner) field");
    target = values.text(name);
  }
}
}  // namespace detail

template <class C, class Field>
ParamSpec&& ParamSpec::into(Field C::*field) && {
  assign = [field, name = name, type = type, choices = choices](PluginObject& object, const ParamValues& values) {
    detail::store_param(dynamic_cast<C&>(object).*field, name, type, choices, values);
  };
  return std::move(*this);
}

template <class C, class Part, class Field>
ParamSpec&& ParamSpec::into(Part C::*part, Field Part::*field) && {
  assign = [part, field, name = name, type = type, choices = choices](PluginObject& object, const ParamValues& values) {
    detail::store_param(dynamic_cast<C&>(object).*part.*field, name, type, choices, values);
  };
  return std::move(*this);
}

// Stores every bound parameter's value in `object` (ParamSpec::into), then lets the plugin derive from them: a
// `void configure()` member, when it has one, runs last (and may throw glimpse::Error for combinations the
// declaration cannot express).
template <class Plugin>
void assign_params(Plugin& object, const PluginSpec& spec, const ParamValues& values) {
  for (const auto& param : spec.params)
    if (param.assign) param.assign(object, values);
  if constexpr (requires { object.configure(); }) object.configure();
}

// `object` as the interface its kind implements (Learner, Metric, ...); an Error at `where` saying `what_else` when
// it is not one.
template <class Kind>
std::unique_ptr<Kind> as_kind(std::unique_ptr<PluginObject> object, const std::string& where,
                              const std::string& what_else) {
  auto* typed = dynamic_cast<Kind*>(object.get());
  if (!typed) throw Error(where, what_else);
  object.release();
  return std::unique_ptr<Kind>(typed);
}

// Layout of the entry struct. Only `api_version` may be read before it has been checked.
struct PluginEntry {
  std::uint32_t api_version;
  const PluginSpec& (*describe)();
  // Creates an object of the plugin's kind from validated parameters; the caller owns it. May throw
  // glimpse::Error for parameter combinations the declaration cannot express.
  PluginObject* (*create)(const ParamValues& params);
  // A plugin family (optional; null for an ordinary plugin) also has members named "NAME:ARGUMENT", where NAME is
  // its own name: e.g. "python:my_learner.py:MyLearner", a learner written in Python. describe_member gives the
  // member's declaration (its name the whole text) or throws Error saying why ARGUMENT names no member;
  // create_member makes one of its objects. The host describes a member the first time a protocol or command
  // names it, and treats it as any plugin from then on.
  PluginSpec (*describe_member)(const std::string& argument);
  PluginObject* (*create_member)(const std::string& argument, const ParamValues& params);
};

inline constexpr const char* plugin_entry_symbol = "glimpse_plugin_entry";

namespace detail {
template <class Plugin>
const PluginSpec& describe_plugin() {
  static const PluginSpec spec = Plugin::spec();
  return spec;
}
// A plugin is constructed from the ParamValues when it has such a constructor, default-constructed otherwise; its
// bound parameters are then assigned (assign_params).
template <class Plugin>
PluginObject* create_plugin(const ParamValues& params) {
  std::unique_ptr<Plugin> plugin;
  if constexpr (std::is_constructible_v<Plugin, const ParamValues&>)
    plugin = std::make_unique<Plugin>(params);
  else
    plugin = std::make_unique<Plugin>();
  assign_params(*plugin, describe_plugin<Plugin>(), params);
  return plugin.release();
}
template <class Family>
PluginSpec describe_family_member(const std::string& argument) {
  return Family::member_spec(argument);
}
template <class Family>
PluginObject* create_family_member(const std::string& argument, const ParamValues& params) {
  return new Family(argument, params);
}
}  // namespace detail

}  // namespace glimpse

// Exports `Plugin` (a class with `static PluginSpec spec()` and a constructor from `const ParamValues&`)
// as this library's plugin. Use once per shared library.
#define GLIMPSE_PLUGIN(Plugin)                                                                                         \
  extern "C" GLIMPSE_API const ::glimpse::PluginEntry* glimpse_plugin_entry() noexcept {                               \
    static const ::glimpse::PluginEntry entry{GLIMPSE_PLUGIN_API_VERSION, &::glimpse::detail::describe_plugin<Plugin>, \
                                              &::glimpse::detail::create_plugin<Plugin>};                              \
    return &entry;                                                                                                     \
  }

// Exports `Family` as this library's plugin family: a class with `static PluginSpec spec()` (the family's own
// declaration, e.g. for `glimpse describe NAME`), `static PluginSpec member_spec(const std::string& argument)`, a
// constructor from `const ParamValues&` (the family named alone) and one from `(const std::string& argument,
// const ParamValues&)` (a member).
#define GLIMPSE_PLUGIN_FAMILY(Family)                                                                                  \
  extern "C" GLIMPSE_API const ::glimpse::PluginEntry* glimpse_plugin_entry() noexcept {                               \
    static const ::glimpse::PluginEntry entry{GLIMPSE_PLUGIN_API_VERSION, &::glimpse::detail::describe_plugin<Family>, \
                                              &::glimpse::detail::create_plugin<Family>,                               \
                                              &::glimpse::detail::describe_family_member<Family>,                      \
                                              &::glimpse::detail::create_family_member<Family>};                       \
    return &entry;                                                                                                     \
  }
