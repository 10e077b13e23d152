// The plugin boundary: one extern "C" entry point per shared library, returning a plain struct whose
// first member is the plugin API version. The host reads that version before touching anything else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "glimpse/error.hpp"
#include "glimpse/params.hpp"
#include "glimpse/prediction.hpp"

// Bump when PluginEntry, PluginSpec or any interface handed across the boundary (Learner, Dataset, ...)
// changes layout or meaning. The host refuses plugins built against another value.
#define GLIMPSE_PLUGIN_API_VERSION 10

// Types whose identity must be shared between the host and plugins built with -fvisibility=hidden.
#define GLIMPSE_API __attribute__((visibility("default")))

namespace glimpse {

enum class PluginKind : std::uint8_t { learner, oracle, query_rule, metric, data_source, transform };
std::string_view plugin_kind_name(PluginKind kind) noexcept;

// What a plugin declares about itself; `glimpse describe NAME` prints it and validation checks against it.
struct PluginSpec {
  std::string name;  // lower_snake_case, unique among loaded plugins
  PluginKind kind = PluginKind::learner;
  std::string version = "1.0";  // the plugin's own version, recorded in traces
  // Arithmetic revision: bump it whenever the plugin's numbers may change for the same inputs (a new update
  // order, another summation, a fixed bug). Results pages record the revisions they were made with, and
  // `glimpse reproduce --list` marks a page stale when one differs; a learner's golden test forces the bump.
  std::uint32_t revision = 1;
  std::string summary;          // one line
  std::string reference;        // paper and section, where one applies
  std::vector<ParamSpec> params;
  FeedbackKinds accepts;                       // learners: feedback kinds they can learn from
  bool batch = false;                          // learners: a BatchLearner, fitted whole in batch protocols
  FeedbackKind produces = FeedbackKind::none;  // oracles: the kind they return
};

// Base of every object a plugin creates. The host deletes it through this virtual destructor, while the
// plugin's library stays loaded (plugins are never unloaded during a process).
class GLIMPSE_API PluginObject {
 public:
  virtual ~PluginObject();
};

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
template <class Plugin>
PluginObject* create_plugin(const ParamValues& params) {
  return new Plugin(params);
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
#define GLIMPSE_PLUGIN_FAMILY(Family)                                                                               \
  extern "C" GLIMPSE_API const ::glimpse::PluginEntry* glimpse_plugin_entry() noexcept {                             \
    static const ::glimpse::PluginEntry entry{                                                                       \
        GLIMPSE_PLUGIN_API_VERSION, &::glimpse::detail::describe_plugin<Family>,                                     \
        &::glimpse::detail::create_plugin<Family>, &::glimpse::detail::describe_family_member<Family>,               \
        &::glimpse::detail::create_family_member<Family>};                                                           \
    return &entry;                                                                                                   \
  }
