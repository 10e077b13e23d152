// The plugin loader on fixture libraries: good, other API version, no entry point, throwing factory,
// invalid description, duplicate name; and discover()'s loading on demand through the plugin index.
#include <dlfcn.h>

#include <fstream>

#include "plugin_index.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

const std::filesystem::path fixtures = GLIMPSE_TEST_FIXTURE_DIR;

std::string refusal_of(const std::string& file) {
  PluginRegistry r;
  return error_of([&] { r.load_file(fixtures / file); });
}

// The built-in folder is where the build puts plugins (LIBDIR/glimpse/plugins, as they are installed): the core's
// search path and CMake's plugin folder come from the one GLIMPSE_PLUGIN_INSTALL_DIR, which this checks for the
// configured LIBDIR (lib in the default build).
TEST(PluginRegistry, SearchesTheFolderTheBuildPutsPluginsIn) {
  const auto path = PluginRegistry::default_search_path();
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(std::filesystem::equivalent(path.back(), GLIMPSE_TEST_PLUGIN_DIR)) << path.back();
}

TEST(PluginRegistry, LoadsAGoodPluginAndCreatesItsObjects) {
  PluginRegistry r;
  r.load_file(fixtures / "good" / "fixture_good.so");
  const LoadedPlugin& p = r.get("fixture_good", PluginKind::learner, "here");
  EXPECT_EQ(p.spec->summary, "always predicts class 0");
  auto object = p.create(ParamValues{});
  EXPECT_NE(dynamic_cast<Learner*>(object.get()), nullptr);
  EXPECT_TRUE(r.problems().empty());
}

TEST(PluginRegistry, RefusesAPluginBuiltForAnotherApiVersion) {
  const std::string file = (fixtures / "wrong_version" / "fixture_wrong_version.so").string();
  EXPECT_EQ(refusal_of("wrong_version/fixture_wrong_version.so"),
            file + ": was built for glimpse plugin API version " + std::to_string(GLIMPSE_PLUGIN_API_VERSION + 41) +
                ", this glimpse uses version " + std::to_string(GLIMPSE_PLUGIN_API_VERSION) +
                ": rebuild the plugin against this glimpse");
}

TEST(PluginRegistry, RefusesALibraryWithoutEntryPoint) {
  const std::string file = (fixtures / "no_entry" / "fixture_no_entry.so").string();
  EXPECT_EQ(
      refusal_of("no_entry/fixture_no_entry.so"),
      file + ": is not a glimpse plugin: it exports no 'glimpse_plugin_entry' (use GLIMPSE_PLUGIN in one source file)");
}

TEST(PluginRegistry, RefusesAnInvalidDescription) {
  EXPECT_NE(refusal_of("bad_description/fixture_bad_description.so")
                .find("has an invalid description: its name "
                      "'Not-Snake-Case' is not lower_snake_case"),
            std::string::npos);
}

TEST(PluginRegistry, RefusesAFileThatIsNotALibrary) {
  TempDir dir;
  const auto file = dir.path() / "junk.so";
  { std::ofstream(file) << "not an ELF file"; }
  PluginRegistry r;
  EXPECT_EQ(error_of([&] { r.load_file(file); }).rfind(file.string() + ": cannot be loaded: ", 0), 0u);
  r.load_directory(dir.path());  // a folder scan records the problem and goes on
  ASSERT_EQ(r.problems().size(), 1u);
}

TEST(PluginRegistry, ReportsAThrowingFactoryWithThePluginName) {
  PluginRegistry r;
  r.load_file(fixtures / "throwing_factory" / "fixture_throwing_factory.so");
  const auto& p = r.get("fixture_throwing_factory", PluginKind::learner, "here");
  EXPECT_EQ(error_of([&] { p.create(ParamValues{}); }),
            "learner 'fixture_throwing_factory': failed to create: the fixture refuses to be created");
}

TEST(PluginRegistry, ADuplicateNameIsAnErrorNamingBothFiles) {
  PluginRegistry r;
  r.load_directory(fixtures / "duplicate");
  ASSERT_EQ(r.problems().size(), 1u);
  const auto message = error_of([&] { r.get("fixture_good", PluginKind::learner, "x.json: learners[0].name"); });
  EXPECT_EQ(message.rfind("x.json: learners[0].name: learner 'fixture_good' is defined twice: ", 0), 0u) << message;
  EXPECT_NE(message.find("fixture_good.so"), std::string::npos);
  EXPECT_NE(message.find("fixture_good_again.so"), std::string::npos);
}

TEST(PluginRegistry, LoadingTheSameFileTwiceIsHarmless) {
  PluginRegistry r;
  r.load_file(fixtures / "good" / "fixture_good.so");
  r.load_file(fixtures / "good" / "fixture_good.so");
  EXPECT_TRUE(r.problems().empty());
  EXPECT_EQ(r.plugins().size(), 1u);
}

// discover() searches GLIMPSE_PLUGIN_PATH, then this build's plugin folder; these tests put a folder of fresh copies
// of fixture libraries first (files this process has never loaded) and an index of their own.
class DiscoverWithIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(folder());
    ::setenv("GLIMPSE_PLUGIN_PATH", folder().c_str(), 1);
    ::setenv("GLIMPSE_PLUGIN_INDEX", index_file().c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("GLIMPSE_PLUGIN_PATH");
    ::unsetenv("GLIMPSE_PLUGIN_INDEX");
  }
  std::filesystem::path folder() const { return dir_.path() / "plugins"; }
  std::filesystem::path index_file() const { return dir_.path() / "plugin-index"; }
  // A copy of a fixture library under `name` in folder(), known to the index as defining `plugin` (unless empty).
  std::filesystem::path copy(const std::string& fixture, const std::string& name, const std::string& plugin,
                             bool serves_dataset_names = false) const {
    const auto file = folder() / name;
    std::filesystem::copy_file(fixtures / fixture, file);
    if (!plugin.empty()) {
      PluginIndex index(index_file());
      EXPECT_TRUE(index.learn(std::filesystem::canonical(file), plugin, serves_dataset_names));
      index.save();
    }
    return std::filesystem::canonical(file);
  }
  // Whether this process has loaded the file (RTLD_NOLOAD loads nothing).
  static bool loaded(const std::filesystem::path& library) {
    void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle) ::dlclose(handle);  // NOLOAD counted one more reference
    return handle != nullptr;
  }
  TempDir dir_;
};

TEST_F(DiscoverWithIndex, ALibraryTheIndexKnowsLoadsWhenItsNameIsLookedUp) {
  const auto library = copy("good/fixture_good.so", "fixture_good.so", "fixture_good");
  const auto registry = PluginRegistry::discover();
  EXPECT_FALSE(loaded(library));
  const LoadedPlugin* plugin = registry.find("fixture_good");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(std::filesystem::canonical(plugin->file), library);
  EXPECT_TRUE(loaded(library));
  EXPECT_EQ(registry.find("fixture_good"), plugin);  // loaded once
}

TEST_F(DiscoverWithIndex, ALibraryTheIndexDoesNotKnowLoadsAtOnceAndIsLearnt) {
  const auto library = copy("good/fixture_good.so", "fixture_good.so", "");
  const auto registry = PluginRegistry::discover();
  EXPECT_TRUE(loaded(library));
  const auto entry = PluginIndex(index_file()).lookup(library);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->name, "fixture_good");
  EXPECT_EQ(entry->size, std::filesystem::file_size(library));
  EXPECT_FALSE(entry->serves_dataset_names);
  // Every shipped plugin was learnt too: a second discover() finds them all without loading one up front.
  EXPECT_TRUE(PluginIndex(index_file()).lookup(std::filesystem::canonical(
                                                   std::filesystem::path(GLIMPSE_TEST_PLUGIN_DIR) / "banditron.so"))
                  .has_value());
}

TEST_F(DiscoverWithIndex, AnEntryWhoseFileChangedIsNotTrusted) {
  const auto library = copy("good/fixture_good.so", "fixture_good.so", "fixture_good");
  std::filesystem::resize_file(library, std::filesystem::file_size(library) + 8);  // other size: stale
  const auto registry = PluginRegistry::discover();
  EXPECT_TRUE(loaded(library));  // loaded at once, as one the index does not know
}

TEST_F(DiscoverWithIndex, TwoLibrariesDefiningOneNameAreBothLoadedAndNamed) {
  copy("good/fixture_good.so", "a.so", "fixture_good");
  copy("duplicate/fixture_good_again.so", "b.so", "fixture_good");
  const auto registry = PluginRegistry::discover();
  const auto message = error_of([&] { registry.get("fixture_good", PluginKind::learner, "x.json: learners[0].name"); });
  EXPECT_NE(message.find("learner 'fixture_good' is defined twice: "), std::string::npos) << message;
  EXPECT_NE(message.find("a.so"), std::string::npos) << message;
  EXPECT_NE(message.find("b.so"), std::string::npos) << message;
}

TEST_F(DiscoverWithIndex, ALibraryRefusedWhenLoadedOnDemandIsReportedAsWhenLoadedAtOnce) {
  const auto junk = folder() / "junk.so";
  { std::ofstream(junk) << "not an ELF file"; }
  {
    PluginIndex index(index_file());
    ASSERT_TRUE(index.learn(std::filesystem::canonical(junk), "junk", false));
    index.save();
  }
  const auto registry = PluginRegistry::discover();
  const auto message = error_of([&] { registry.get("junk", PluginKind::learner, "x.json: learners[0].name"); });
  EXPECT_EQ(message.rfind("x.json: learners[0].name: unknown learner 'junk'; available: ", 0), 0u) << message;
  EXPECT_NE(message.find("(not loaded: " + std::filesystem::canonical(junk).string() + ": cannot be loaded: "),
            std::string::npos)
      << message;
}

TEST_F(DiscoverWithIndex, TheDatasetNameServerIsFoundThroughTheIndex) {
  const auto library = copy("good/fixture_good.so", "fixture_good.so", "fixture_good");
  PluginRegistry::discover();  // learns the shipped folder, 'installed' among it, as serving dataset names
  const auto registry = PluginRegistry::discover();  // now every library is pending
  EXPECT_EQ(registry.dataset_name_server("here").spec->name, "installed");
  EXPECT_FALSE(loaded(library));  // and nothing else was loaded for it
}

TEST_F(DiscoverWithIndex, TheIndexForgetsLibrariesNoLongerThere) {
  const auto library = copy("good/fixture_good.so", "fixture_good.so", "fixture_good");
  std::filesystem::remove(library);
  PluginIndex index(index_file());
  ASSERT_TRUE(index.learn(std::filesystem::canonical(index_file()), "not_a_library", false));  // changed: saves
  index.save();
  EXPECT_FALSE(PluginIndex(index_file()).lookup(library).has_value());
  std::ifstream in(index_file());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find(library.string()), std::string::npos) << text;
}

TEST(PluginIndexFile, IsNoneWhenTurnedOff) {
  ::setenv("GLIMPSE_PLUGIN_INDEX", "off", 1);
  EXPECT_TRUE(PluginIndex::default_file().empty());
  ::unsetenv("GLIMPSE_PLUGIN_INDEX");
}

TEST(PluginRegistry, EveryShippedPluginLoadsWithoutProblems) {
  EXPECT_TRUE(registry().problems().empty());
  EXPECT_GE(registry().plugins().size(), 11u);
}

}  // namespace
}  // namespace glimpse::test
