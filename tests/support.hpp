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
#include "orchestrator.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"

namespace glimpse::test {

// The registry of the plugins built with this tree (GLIMPSE_TEST_PLUGIN_DIR), loaded once.
inline const PluginRegistry& registry() {
  static const PluginRegistry loaded = [] {
    PluginRegistry r;
    r.load_directory(GLIMPSE_TEST_PLUGIN_DIR);
    return r;
  }();
  return loaded;
}

// Resolves a plugin's parameters: declared defaults, overridden by `overrides` (protocol text).
// A `learner` parameter gets the learner it names (overrides "NAME.PARAM" set that learner's parameters), as a
// protocol's would.
inline ParamValues params_for(const PluginSpec& spec, const std::map<std::string, std::string>& overrides = {},
                              const ProblemShape* shape = nullptr) {
  ParamValues values = resolve_params(spec.params, overrides, shape, "test");
  for (const auto& p : spec.params) {
    if (p.type != ParamType::learner) continue;
    const LoadedPlugin* wrapped = registry().find(values.text(p.name));
    if (!wrapped) throw std::logic_error("no plugin " + values.text(p.name));
    std::map<std::string, std::string> own;
    for (const auto& [key, text] : overrides)
      if (key.rfind(p.name + ".", 0) == 0) own[key.substr(p.name.size() + 1)] = text;
    values.set_factory(p.name, [wrapped, own_values = params_for(*wrapped->spec, own, shape)] {
      return wrapped->create(own_values);
    });
  }
  return values;
}

template <class Kind>
std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& overrides = {},
                           const ProblemShape* shape = nullptr) {
  const LoadedPlugin* plugin = registry().find(name);
  if (!plugin) throw std::logic_error("no plugin " + name + " in " GLIMPSE_TEST_PLUGIN_DIR);
  auto object = plugin->create(params_for(*plugin->spec, overrides, shape));
  auto* typed = dynamic_cast<Kind*>(object.get());
  if (!typed) throw std::logic_error(name + " is not of the requested kind");
  object.release();
  return std::unique_ptr<Kind>(typed);
}

// A dense row that owns its values.
struct DenseRow {
  std::vector<Feature> values;
  explicit DenseRow(std::vector<Feature> v) : values(std::move(v)) {}
  Instance view() const {
    return {values.data(), nullptr, static_cast<std::int32_t>(values.size()), static_cast<std::int32_t>(values.size()),
            false};
  }
};

struct SparseRow {
  std::vector<std::int32_t> indices;
  std::vector<Feature> values;
  std::int32_t dim;
  Instance view() const { return {values.data(), indices.data(), static_cast<std::int32_t>(values.size()), dim, true}; }
};

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
