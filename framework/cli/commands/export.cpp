// glimpse export: a trace's tables as CSV or JSON.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "table_export.hpp"
#include "trace_reading.hpp"

namespace glimpse::cli {

namespace fs = std::filesystem;

int command_export(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse export FILE: a trace file's tables as CSV or JSON, for tools that do not read HDF5. Without --out,\n"
      "one table goes to standard output; with --out DIR, the summary and the curves (and the rounds of --run)\n"
      "are written to DIR/summary.FORMAT, DIR/curves.FORMAT (and DIR/rounds_RUN.FORMAT)\n\nOptions");
  options.add_options()("help,h", "show this help")("file", po::value<std::string>(), "trace file (.h5)")(
      "table", po::value<std::string>()->default_value("summary"),
      "summary (one row per run: identity, status, time, final metrics), curves (learning curves averaged over "
      "seeds, long form; chosen = 1 marks the selected grid point) or rounds (one row per round of --run)")(
      "run", po::value<std::string>()->default_value(""), "a run's id (the summary's run column), for rounds")(
      "format", po::value<std::string>()->default_value("csv"), "csv or json (an array of objects, one per row)")(
      "out", po::value<std::string>(), "folder to write the tables to, instead of standard output");
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"file"});
  if (exit_status) return *exit_status;
  const std::string file_name = vm["file"].as<std::string>();
  const std::string run = vm["run"].as<std::string>();
  const std::string format_name = vm["format"].as<std::string>();
  const auto format = glimpse::parse_export_format(format_name);
  const glimpse::h5::Handle file = glimpse::open_trace_file(file_name);
  if (!vm.count("out")) {
    const auto table = glimpse::read_trace_table(file, file_name, vm["table"].as<std::string>(), run);
    glimpse::write_table(table, format, std::cout);
    return 0;
  }
  const fs::path folder = vm["out"].as<std::string>();
  fs::create_directories(folder);
  std::vector<std::pair<std::string, std::string>> tables{{"summary", "summary"}, {"curves", "curves"}};
  if (!run.empty()) tables.emplace_back("rounds", "rounds_" + run);
  for (const auto& [table, name] : tables) {
    const fs::path path = folder / (name + "." + format_name);
    std::ofstream out(path);
    if (!out) throw glimpse::Error(path.string(), std::string("cannot write: ") + std::strerror(errno));
    glimpse::write_table(glimpse::read_trace_table(file, file_name, table, run), format, out);
    out.close();
    if (!out) throw glimpse::Error(path.string(), std::string("cannot write: ") + std::strerror(errno));
    std::cerr << path.string() << '\n';
  }
  return 0;
}

}  // namespace glimpse::cli
