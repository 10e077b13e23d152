// glimpse new learner: a working learner plugin to start from.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "new_plugin.hpp"
#include "plugin_registry.hpp"

namespace glimpse::cli {

namespace fs = std::filesystem;

int command_new(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse new learner NAME: a working learner plugin to start from: NAME.cpp (a multiclass Perceptron),\n"
      "NAME_test.cpp (its unit tests, with glimpse/testing.hpp), README.md and CMakeLists.txt. Run at the top of\n"
      "the glimpse tree, it writes plugins/learners/NAME, built and tested with the rest; elsewhere (or with\n"
      "--out), a project of its own built against an installed glimpse\n\nOptions");
  options.add_options()("help,h", "show this help")("kind", po::value<std::string>(), "learner")(
      "name", po::value<std::string>(), "the plugin's name (lower_snake_case)")(
      "out", po::value<std::string>(), "the folder to write (a project of its own)");
  po::positional_options_description positional;
  positional.add("kind", 1).add("name", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"kind", "name"});
  if (exit_status) return *exit_status;
  if (vm["kind"].as<std::string>() != "learner")
    throw glimpse::Error("glimpse new", "only 'learner' has a template so far, got '" + vm["kind"].as<std::string>() +
                                            "' (docs/writing-a-plugin.md shows the other kinds' contracts)");
  const std::string name = vm["name"].as<std::string>();
  const bool in_tree =
      !vm.count("out") && fs::exists("framework/include/glimpse/plugin.hpp") && fs::is_directory("plugins/learners");
  const fs::path folder = vm.count("out") ? fs::path(vm["out"].as<std::string>())
                          : in_tree       ? fs::path("plugins/learners") / name
                                          : fs::path(name);
  // A plugin of the same name would shadow the shipped one (or be refused as a duplicate): name it otherwise. (A
  // folder already there is refused as such by write_new_learner.)
  const auto registry = glimpse::PluginRegistry::discover();  // kept: what find() returns lives in it
  if (!fs::exists(folder))
    if (const glimpse::LoadedPlugin* existing = registry.find(name))
      throw glimpse::Error("glimpse new learner " + name,
                           "'" + name + "' is already the name of a " +
                               std::string(glimpse::plugin_kind_name(existing->spec->kind)) + " plugin (" +
                               existing->file.string() + "); choose another name");
  for (const auto& file : glimpse::cli::write_new_learner(name, folder, in_tree)) std::cout << file.string() << '\n';
  std::cout << (in_tree
                    ? "in the glimpse tree: `cmake build && cmake --build build` builds it and its tests (they join "
                      "glimpse_tests); its README says how to run them and record its golden fingerprint\n"
                    : "a project of its own: see " + (folder / "README.md").string() + " to build and test it\n");
  return 0;
}

// Runs a program (no shell) with its standard output sent to our standard error; its exit status, or -1.

}  // namespace glimpse::cli
