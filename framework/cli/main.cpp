// The glimpse command line: run, plugins, describe, summary.
#include <boost/program_options.hpp>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "embedded_quickstart.hpp"
#include "glimpse/error.hpp"
#include "orchestrator.hpp"
#include "plugin_registry.hpp"
#include "protocol.hpp"
#include "summary.hpp"
#include "text_table.hpp"

#ifndef GLIMPSE_VERSION_STRING
#define GLIMPSE_VERSION_STRING "unknown"
#endif

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* usage_text = R"(glimpse: online multiclass learning under weak feedback

Usage:
  glimpse run [PROTOCOL] [options]   run a protocol (default: the embedded quickstart)
  glimpse summary FILE               per dataset and learner: chosen grid point, mean (std) over seeds
  glimpse plugins                    list the plugins that can be loaded
  glimpse describe NAME              a plugin's description and parameters
  glimpse --version | --help         ('glimpse COMMAND --help' for a command's options)

Plugins are searched in $GLIMPSE_PLUGIN_PATH (':'-separated folders), then in lib/glimpse/plugins
beside the glimpse executable's bin/ folder.
)";

std::atomic<bool> interrupt_requested{false};

extern "C" void on_interrupt(int) {
  interrupt_requested = true;
  // A second Ctrl-C ends the process at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  po::notify(vm);
  return vm;
}

int command_run(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse run [PROTOCOL] [options]\n\n"
      "Runs every (learner, grid point, dataset, seed) of PROTOCOL, writes the traces to\n"
      "an HDF5 file and prints the summary. Rerunning resumes: finished runs are kept.\n"
      "Without PROTOCOL, runs the embedded quickstart (protocols/quickstart.json).\n\nOptions");
  options.add_options()("help,h", "show this help")("protocol", po::value<std::string>(), "protocol file (JSON)")(
      "threads,j", po::value<int>()->default_value(0), "worker threads (0: all cores); results do not depend on it")(
      "output,o", po::value<std::string>(), "trace file (default: the protocol's \"output\", else runs/NAME.h5)")(
      "force", "discard earlier results in the output file and start afresh")("quiet,q",
                                                                              "no progress line and no summary table")(
      "stop-after", po::value<long long>(), "stop after this many new runs, as if interrupted (for testing resume)");
  po::positional_options_description positional;
  positional.add("protocol", 1);
  const auto vm = parse(args, options, positional);
  if (vm.count("help")) {
    std::cout << options << '\n';
    return 0;
  }
  const auto registry = glimpse::PluginRegistry::discover();
  glimpse::Protocol protocol = vm.count("protocol")
                                   ? glimpse::load_protocol_file(vm["protocol"].as<std::string>(), registry)
                                   : glimpse::parse_protocol(glimpse::cli::embedded_quickstart_json,
                                                             "<embedded quickstart>", fs::current_path(), registry);

  glimpse::SweepOptions sweep;
  sweep.threads = vm["threads"].as<int>();
  if (sweep.threads < 0) throw glimpse::Error("--threads", "expected a number >= 0");
  sweep.force = vm.count("force") > 0;
  sweep.progress = !vm.count("quiet");
  if (vm.count("output")) sweep.output = vm["output"].as<std::string>();
  if (vm.count("stop-after")) sweep.stop_after = vm["stop-after"].as<long long>();
  sweep.interrupt = &interrupt_requested;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);

  const auto result = glimpse::run_sweep(protocol, sweep);
  if (!vm.count("quiet")) {
    glimpse::print_summary(result.output, std::cout);
    std::cout << '\n';
  }
  const double rate = result.seconds > 0 ? static_cast<double>(result.rounds) / result.seconds : 0.0;
  std::fprintf(stderr, "%s: %lld of %lld runs complete (%lld this time, %.3g rounds/s overall, %.2f s)\n",
               result.output.c_str(), static_cast<long long>(result.already_complete + result.completed_now),
               static_cast<long long>(result.total_runs), static_cast<long long>(result.completed_now), rate,
               result.seconds);
  if (result.interrupted) {
    std::fprintf(stderr, "interrupted: run the same command again to resume\n");
    return 130;
  }
  return 0;
}

int command_plugins(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse plugins: lists loadable plugins and any library that was refused\n\nOptions");
  options.add_options()("help,h", "show this help");
  const auto vm = parse(args, options, {});
  if (vm.count("help")) {
    std::cout << options << '\n';
    return 0;
  }
  const auto registry = glimpse::PluginRegistry::discover();
  glimpse::TextTable table({"kind", "name", "version", "summary"});
  for (const auto* p : registry.plugins())
    table.add_row(
        {std::string(glimpse::plugin_kind_name(p->spec->kind)), p->spec->name, p->spec->version, p->spec->summary});
  table.print(std::cout);
  std::cout << "\nsearched: ";
  for (const auto& dir : glimpse::PluginRegistry::default_search_path()) std::cout << dir.string() << "  ";
  std::cout << '\n';
  for (const auto& problem : registry.problems()) std::cerr << "not loaded: " << problem << '\n';
  return 0;
}

int command_describe(const std::vector<std::string>& args) {
  po::options_description options("glimpse describe NAME: a plugin's description and parameters\n\nOptions");
  options.add_options()("help,h", "show this help")("name", po::value<std::string>(), "plugin name");
  po::positional_options_description positional;
  positional.add("name", 1);
  const auto vm = parse(args, options, positional);
  if (vm.count("help") || !vm.count("name")) {
    std::cout << options << '\n';
    return vm.count("help") ? 0 : 2;
  }
  const auto registry = glimpse::PluginRegistry::discover();
  const std::string name = vm["name"].as<std::string>();
  const glimpse::LoadedPlugin* plugin = registry.find(name);
  if (!plugin) {
    std::string names;
    for (const auto* p : registry.plugins()) names += (names.empty() ? "" : ", ") + p->spec->name;
    throw glimpse::Error("unknown plugin '" + name + "'; available: " + names);
  }
  const auto& spec = *plugin->spec;
  std::cout << spec.name << " (" << glimpse::plugin_kind_name(spec.kind) << ", version " << spec.version << ")\n"
            << "  " << spec.summary << '\n';
  if (!spec.reference.empty()) std::cout << "  reference: " << spec.reference << '\n';
  if (spec.kind == glimpse::PluginKind::learner) {
    std::cout << "  accepts feedback:";
    for (auto k : spec.accepts.kinds()) std::cout << ' ' << glimpse::feedback_kind_name(k);
    std::cout << '\n';
  }
  if (spec.kind == glimpse::PluginKind::oracle)
    std::cout << "  produces feedback: " << glimpse::feedback_kind_name(spec.produces) << '\n';
  std::cout << "  file: " << plugin->file.string() << "\n\n";
  if (spec.params.empty()) {
    std::cout << "no parameters\n";
    return 0;
  }
  glimpse::TextTable table({"parameter", "type", "default", "allowed", "meaning"});
  for (const auto& p : spec.params)
    table.add_row({p.name, p.type_name(), p.required ? "(required)" : p.default_value, p.expectation(), p.doc});
  table.print(std::cout);
  return 0;
}

int command_summary(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse summary FILE: per dataset and learner, the grid point chosen by the\n"
      "protocol's selection rule and the mean (std) over seeds of every final metric\n\nOptions");
  options.add_options()("help,h", "show this help")("file", po::value<std::string>(), "trace file (.h5)");
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto vm = parse(args, options, positional);
  if (vm.count("help") || !vm.count("file")) {
    std::cout << options << '\n';
    return vm.count("help") ? 0 : 2;
  }
  glimpse::print_summary(vm["file"].as<std::string>(), std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usage_text;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "glimpse " << GLIMPSE_VERSION_STRING << " (plugin API " << GLIMPSE_PLUGIN_API_VERSION << ")\n";
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return command_run(args);
    if (command == "plugins") return command_plugins(args);
    if (command == "describe") return command_describe(args);
    if (command == "summary") return command_summary(args);
    std::cerr << "glimpse: unknown command '" << command << "'\n\n" << usage_text;
    return 2;
  } catch (const glimpse::Error& e) {
    std::cerr << "glimpse: error: " << e.what() << '\n';
    return 2;
  } catch (const po::error& e) {
    std::cerr << "glimpse " << command << ": " << e.what() << " (see 'glimpse " << command << " --help')\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "glimpse: internal error: " << e.what() << '\n';
    return 1;
  }
}
