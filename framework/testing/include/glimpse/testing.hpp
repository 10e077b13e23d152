// Helpers for a plugin's unit tests, in glimpse's tree and out of it (docs/writing-a-plugin.md, section 2c):
// load plugin libraries from folders, make a plugin with its parameters written as a protocol writes them, and
// rows from plain vectors. Usable from any test framework; glimpse's own tests use them through tests/support.hpp.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/glimpse.hpp"

namespace glimpse {
class PluginRegistry;
}

namespace glimpse::testing {

class Plugins {
 public:
  // Loads every plugin library (*.so) in each folder, as GLIMPSE_PLUGIN_PATH's folders are loaded.
  explicit Plugins(const std::vector<std::filesystem::path>& folders);
  ~Plugins();
  Plugins(const Plugins&) = delete;
  Plugins& operator=(const Plugins&) = delete;

  // The plugin's declaration. Error listing what was loaded when there is no plugin of that name.
  const PluginSpec& spec(const std::string& name) const;
  // Its parameters as a protocol gives them: the declared defaults, overridden by `given` (protocol text, e.g.
  // {{"epsilon", "0.1"}}; a learner parameter's learner's own as "NAME.PARAM"). Expressions of K, d, n need
  // `shape`. A refused value is an Error naming the plugin and the parameter.
  ParamValues params(const std::string& name, const std::map<std::string, std::string>& given = {},
                     const ProblemShape* shape = nullptr) const;
  // A new object of the plugin, made from params(name, given, shape).
  std::unique_ptr<PluginObject> make_object(const std::string& name,
                                            const std::map<std::string, std::string>& given = {},
                                            const ProblemShape* shape = nullptr) const;
  // The same, as the interface its kind implements (Learner, FeedbackOracle, Metric, ...).
  template <class Kind>
  std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& given = {},
                             const ProblemShape* shape = nullptr) const {
    return as_kind<Kind>(make_object(name, given, shape), name, "is not a plugin of the requested kind");
  }

  const PluginRegistry& registry() const noexcept { return *registry_; }

 private:
  std::unique_ptr<PluginRegistry> registry_;
};

// A dense row that owns its values; view() is the Instance a plugin is handed.
struct DenseRow {
  std::vector<Feature> values;
  explicit DenseRow(std::vector<Feature> v) : values(std::move(v)) {}
  Instance view() const {
    const auto n = static_cast<std::int32_t>(values.size());
    return {values.data(), nullptr, n, n, false};
  }
};

// A sparse row: the stored features' indices (0-based, increasing) and values, in `dim` dimensions.
struct SparseRow {
  std::vector<std::int32_t> indices;
  std::vector<Feature> values;
  std::int32_t dim;
  Instance view() const { return {values.data(), indices.data(), static_cast<std::int32_t>(values.size()), dim, true}; }
};

}  // namespace glimpse::testing
