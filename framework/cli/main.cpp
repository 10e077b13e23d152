// The glimpse command line: finds the command in the table (commands/commands.hpp; one file per command) and runs
// it, turning errors into the exit status the help describes.
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "glimpse/error.hpp"
#include "glimpse/plugin.hpp"
#include "mpi_dispatcher.hpp"
#include "stream_keys.hpp"

#ifndef GLIMPSE_VERSION_STRING
#define GLIMPSE_VERSION_STRING "unknown"
#endif

namespace {

constexpr const char* usage_head = "glimpse: online multiclass learning under weak feedback\n\nUsage:\n";
constexpr const char* usage_tail = R"(  glimpse --version [--json] | --help ('glimpse COMMAND --help' for a command's options)

Exit status: 0 done; 2 bad input or usage; 3 finished, but some runs failed or are missing (run, merge,
status); 130 interrupted (rerun the same command to resume).

Installed datasets live in $GLIMPSE_DATA (default ~/.cache/glimpse/datasets); a protocol names one as
{"name": "vehicle"}. Datasets as parsed and transformed are kept in $GLIMPSE_DATA/prepared for the next
sweep (GLIMPSE_PREPARED_CACHE=off turns that off; docs/datasets.md).
Plugins are searched in $GLIMPSE_PLUGIN_PATH (':'-separated folders), then in LIBDIR/glimpse/plugins
(lib/glimpse/plugins by default) beside the glimpse executable's bin/ folder; only the libraries a
command names are loaded, found through the plugin index ~/.cache/glimpse/plugin-index
(GLIMPSE_PLUGIN_INDEX=FILE elsewhere, =off to load all).
)";

void print_usage(std::ostream& out) {
  out << usage_head;
  for (const auto& command : glimpse::cli::commands()) out << "  glimpse " << command.name << ' ' << command.usage;
  out << usage_tail;
}

// What can move a number besides the protocol and the plugins: the core's arithmetic revision (stream keys, orders,
// splits) and the build's arithmetic. The page generator fingerprints this.
void print_version(bool json) {
  const char* mpi = glimpse::mpi_available() ? "built in" : "not built";
  if (json) {
    std::cout << "{\"version\": \"" GLIMPSE_VERSION_STRING "\", \"plugin_api\": " << GLIMPSE_PLUGIN_API_VERSION
              << ", \"core_arithmetic\": " << glimpse::core_arithmetic_revision << ", \"build_arithmetic\": \""
              << GLIMPSE_BUILD_ARITHMETIC << "\", \"reference\": " << (GLIMPSE_REFERENCE_ARITHMETIC ? "true" : "false")
              << ", \"mpi\": \"" << mpi << "\"}\n";
    return;
  }
  std::cout << "glimpse " GLIMPSE_VERSION_STRING " (plugin API " << GLIMPSE_PLUGIN_API_VERSION
            << ", core arithmetic " << glimpse::core_arithmetic_revision << ", MPI " << mpi << "; "
            << GLIMPSE_BUILD_ARITHMETIC << ")\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f) a write then fails with EFBIG, which is reported like a full disk, instead
  // of the signal killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    print_version(args.size() > 1 && args[1] == "--json");
    return 0;
  }
  const std::string name = args[0];
  args.erase(args.begin());
  try {
    for (const auto& command : glimpse::cli::commands())
      if (name == command.name) return command.run(args);
    std::cerr << "glimpse: unknown command '" << name << "'\n\n";
    print_usage(std::cerr);
    return 2;
  } catch (const glimpse::Error& e) {
    std::cerr << "glimpse: error: " << e.what() << '\n';
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "glimpse " << name << ": " << e.what() << " (see 'glimpse " << name << " --help')\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "glimpse: internal error: " << e.what() << '\n';
    return 1;
  }
}
