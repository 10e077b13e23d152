// Helpers for glimpse's own framework tests, on top of the ones every plugin test uses (glimpse/testing.hpp,
// glimpse/testing_gtest.hpp): the registry of this build, fixture plugins, protocol sweeps, the learners the
// contract tests cover. A plugin folder's tests do not include this file.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/glimpse.hpp"
#include "glimpse/testing.hpp"
#include "glimpse/testing_gtest.hpp"
#include "orchestrator.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"
#include "trace_reading.hpp"

namespace glimpse::test {

using namespace glimpse::testing;  // NOLINT: the tests are written against the plugin authors' helpers

inline const PluginRegistry& registry() { return plugins().registry(); }

// This build's plugins plus the fixture plugins of one folder under GLIMPSE_TEST_FIXTURE_DIR (e.g. "misbehaving"),
// loaded once per folder.
inline const PluginRegistry& registry_with_fixture(const std::string& folder) {
  static std::map<std::string, std::unique_ptr<PluginRegistry>> loaded;
  auto& registry = loaded[folder];
  if (!registry) {
    registry = std::make_unique<PluginRegistry>();
    registry->load_directory(GLIMPSE_TEST_PLUGIN_DIR);
    registry->load_directory(std::filesystem::path(GLIMPSE_TEST_FIXTURE_DIR) / folder);
  }
  return *registry;
}

// A plugin's parameters: declared defaults, overridden by `overrides` (protocol text); a `learner` parameter gets
// the learner it names ("NAME.PARAM" sets that learner's parameters), as a protocol's would.
inline ParamValues params_for(const PluginSpec& spec, const std::map<std::string, std::string>& overrides = {},
                              const ProblemShape* shape = nullptr) {
  return plugins().params(spec.name, overrides, shape);
}

// The oracle a learner is tested with: the first of its declared feedback kinds in this order.
inline std::string oracle_for(const PluginSpec& spec) {
  for (const auto& [kind, oracle] :
       {std::pair{FeedbackKind::candidate_set, "candidate_set"},
        std::pair{FeedbackKind::complementary, "complementary"}, std::pair{FeedbackKind::correctness, "bandit"},
        std::pair{FeedbackKind::label, "full"}})
    if (spec.accepts.contains(kind)) return oracle;
  return "";
}

// Every online learner in the registry (one that learns from some oracle); plugin families make none of their own.
inline std::vector<const LoadedPlugin*> online_learners() {
  std::vector<const LoadedPlugin*> learners;
  for (const auto* plugin : registry().plugins())
    if (plugin->spec->kind == PluginKind::learner && !oracle_for(*plugin->spec).empty() &&
        !plugin->entry->describe_member)
      learners.push_back(plugin);
  return learners;
}

// Runs a protocol into `output` (no SweepObserver, so no progress line); threads 0: all cores.
inline SweepResult sweep_quietly(const Protocol& protocol, const std::filesystem::path& output, int threads = 0) {
  SweepOptions options;
  options.output = output;
  options.threads = threads;
  return run_sweep(protocol, options);
}

}  // namespace glimpse::test
