#include "glimpse/testing.hpp"

#include "param_resolution.hpp"
#include "plugin_registry.hpp"

namespace glimpse::testing {

Plugins::Plugins(const std::vector<std::filesystem::path>& folders) : registry_(std::make_unique<PluginRegistry>()) {
  for (const auto& folder : folders) registry_->load_directory(folder);
}

Plugins::~Plugins() = default;

namespace {
const LoadedPlugin& loaded(const PluginRegistry& registry, const std::string& name) {
  const LoadedPlugin* plugin = registry.find(name);
  if (plugin) return *plugin;
  std::string names;
  for (const auto* p : registry.plugins()) names += (names.empty() ? "" : ", ") + p->spec->name;
  for (const auto& problem : registry.problems()) names += "; not loaded: " + problem;
  throw Error(name, "no plugin of this name was loaded (loaded: " + (names.empty() ? "none" : names) + ")");
}
}  // namespace

const PluginSpec& Plugins::spec(const std::string& name) const { return *loaded(*registry_, name).spec; }

ParamValues Plugins::params(const std::string& name, const std::map<std::string, std::string>& given,
                            const ProblemShape* shape) const {
  // A learner parameter gets the learner it names, with the "NAME.PARAM" values meant for it, as a protocol's does.
  return registry_->resolve(loaded(*registry_, name), given_by_name(given, name), shape, name);
}

std::unique_ptr<PluginObject> Plugins::make_object(const std::string& name,
                                                   const std::map<std::string, std::string>& given,
                                                   const ProblemShape* shape) const {
  return loaded(*registry_, name).create(params(name, given, shape));
}

ParamValues resolve(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& given,
                    const ProblemShape* shape) {
  return resolve_params(specs, given_by_name(given, "test"), shape, "test");
}

}  // namespace glimpse::testing
