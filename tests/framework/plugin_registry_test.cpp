// The plugin loader on fixture libraries: good, other API version, no entry point, throwing factory,
// invalid description, duplicate name.
#include <fstream>

#include "support.hpp"

namespace glimpse::test {
namespace {

const std::filesystem::path fixtures = GLIMPSE_TEST_FIXTURE_DIR;

std::string refusal_of(const std::string& file) {
  PluginRegistry r;
  return error_of([&] { r.load_file(fixtures / file); });
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

TEST(PluginRegistry, EveryShippedPluginLoadsWithoutProblems) {
  EXPECT_TRUE(registry().problems().empty());
  EXPECT_GE(registry().plugins().size(), 11u);
}

}  // namespace
}  // namespace glimpse::test
