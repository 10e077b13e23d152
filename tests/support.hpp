// Shared helpers for tests: the plugin registry of this build, plugin objects made from parameter text,
// instances from plain vectors, temporary folders, and seeds honouring GLIMPSE_SEED / GLIMPSE_REPEAT.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/glimpse.hpp"
#include "glimpse/testing.hpp"
#include "orchestrator.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"

namespace glimpse::test {

// The plugins built with this tree (GLIMPSE_TEST_PLUGIN_DIR), loaded once, through the helpers plugin authors get
// (glimpse/testing.hpp).
inline const testing::Plugins& plugins() {
  static const testing::Plugins loaded({GLIMPSE_TEST_PLUGIN_DIR});
  return loaded;
}
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

template <class Kind>
std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& overrides = {},
                           const ProblemShape* shape = nullptr) {
  return plugins().make<Kind>(name, overrides, shape);
}

// The oracle a learner is tested with: the first of its declared feedback kinds in this order.
inline std::string oracle_for(const PluginSpec& spec) {
  for (const auto& [kind, oracle] : {std::pair{FeedbackKind::candidate_set, "candidate_set"},
                                     std::pair{FeedbackKind::complementary, "complementary"},
                                     std::pair{FeedbackKind::correctness, "bandit"}, std::pair{FeedbackKind::label, "full"}})
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

using testing::DenseRow;
using testing::SparseRow;

// Seeds for property tests: GLIMPSE_SEED fixes the first, GLIMPSE_REPEAT sets how many (default `count`).
// Runs a protocol into `output` without progress output; threads 0: all cores.
inline SweepResult sweep_quietly(const Protocol& protocol, const std::filesystem::path& output, int threads = 0) {
  SweepOptions options;
  options.progress = false;
  options.output = output;
  options.threads = threads;
  return run_sweep(protocol, options);
}

inline std::vector<std::uint64_t> property_seeds(int count) {
  std::uint64_t first = 1;
  if (const char* s = std::getenv("GLIMPSE_SEED")) first = std::strtoull(s, nullptr, 10);
  if (const char* r = std::getenv("GLIMPSE_REPEAT")) count = std::atoi(r);
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back(first + static_cast<std::uint64_t>(i));
  return seeds;
}

// A fresh, empty folder under the system temp folder, removed when the object goes.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("glimpse-test-" + std::string(info ? info->test_suite_name() : "x") + "-" +
             std::string(info ? info->name() : "y") + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Message of the glimpse::Error that `f` throws ("" if none).
template <class F>
std::string error_of(F&& f);

// Fixture for reader tests: writes text to a file in a fresh folder and loads it with a data source.
class ReaderTest : public ::testing::Test {
 protected:
  ReaderTest(std::string source, std::string file_name)
      : source_(std::move(source)), file_name_(std::move(file_name)) {}
  Dataset load(const std::string& text, std::map<std::string, std::string> params = {}) {
    { std::ofstream(dir.path() / file_name_) << text; }
    params["path"] = file();
    return make<DataSource>(source_, params)->load();
  }
  std::string refusal(const std::string& text, std::map<std::string, std::string> params = {}) {
    return error_of([&] { load(text, params); });
  }
  std::string file() const { return (dir.path() / file_name_).string(); }
  TempDir dir;

 private:
  std::string source_, file_name_;
};

// Message of the glimpse::Error that `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace glimpse::test
