// glimpse datasets: the catalog, and installing datasets from Debian packages.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "dataset_catalog.hpp"
#include "glimpse/dataset_file.hpp"
#include "glimpse/error.hpp"
#include "installed_datasets.hpp"
#include "plugin_registry.hpp"
#include "text_table.hpp"

namespace glimpse::cli {

int command_datasets(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse datasets list | install [NAME...]\n\n"
      "install: fetches the Debian packages carrying the data (apt-get download; nothing else is installed except\n"
      "python3-rdata for R files), converts each dataset into the cache, and checks n, d, K, class counts and a\n"
      "checksum against the catalog. Cache: $GLIMPSE_DATA, default ~/.cache/glimpse/datasets.\n\nOptions");
  options.add_options()("help,h", "show this help")("action", po::value<std::string>(), "list or install")(
      "names", po::value<std::vector<std::string>>()->multitoken(), "datasets to install (default: all)")(
      "catalog", po::value<std::string>(), "a catalog file instead of the built-in one");
  po::positional_options_description positional;
  positional.add("action", 1).add("names", -1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"action"});
  if (exit_status) return *exit_status;
  std::vector<glimpse::CatalogEntry> file_catalog;
  if (vm.count("catalog")) {
    std::ifstream in(vm["catalog"].as<std::string>());
    if (!in) throw glimpse::Error(vm["catalog"].as<std::string>(), "cannot open the catalog");
    std::ostringstream text;
    text << in.rdbuf();
    file_catalog = glimpse::parse_catalog(text.str(), vm["catalog"].as<std::string>());
  }
  const auto& catalog = vm.count("catalog") ? file_catalog : glimpse::builtin_catalog();
  const std::string action = vm["action"].as<std::string>();
  if (action == "list") {
    const auto installed = glimpse::list_cached_datasets();
    glimpse::TextTable table({"name", "installed", "n", "d", "K", "package", "description"});
    for (const auto& e : catalog) {
      const auto it = std::find_if(installed.begin(), installed.end(), [&](const auto& i) { return i.name == e.name; });
      const std::string state = it == installed.end() ? "no" : it->checksum == e.checksum ? "yes" : "differs";
      table.add_row(
          {e.name, state, std::to_string(e.n), std::to_string(e.d), std::to_string(e.k), e.package, e.description});
    }
    for (const auto& i : installed)
      if (std::none_of(catalog.begin(), catalog.end(), [&](const auto& e) { return e.name == i.name; }))
        table.add_row({i.name, "yes (not in catalog)", std::to_string(i.n), std::to_string(i.d), std::to_string(i.k),
                       i.origin.package, i.origin.description});
    table.print(std::cout);
    std::cout << "\ncache: " << glimpse::dataset_cache_dir().string() << '\n';
    return 0;
  }
  if (action != "install") throw glimpse::Error("glimpse datasets: expected 'list' or 'install', got '" + action + "'");
  const auto names = vm.count("names") ? vm["names"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const auto registry = glimpse::PluginRegistry::discover();
  const auto report = glimpse::install_datasets(catalog, names, registry, std::cerr);
  for (const auto& name : report.already_installed) std::cerr << name << ": already installed\n";
  std::cerr << report.installed.size() << " installed, " << report.already_installed.size() << " already there, in "
            << glimpse::dataset_cache_dir().string() << '\n';
  return 0;
}

}  // namespace glimpse::cli
