// glimpse merge: combines the trace files of one protocol's shards.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "merge_traces.hpp"

namespace glimpse::cli {

namespace fs = std::filesystem;

namespace {

std::string id_list(const std::vector<std::string>& ids, std::size_t limit = 20) {
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < limit; ++i) text += (i ? " " : "") + ids[i];
  if (ids.size() > limit) text += " ... (" + std::to_string(ids.size() - limit) + " more)";
  return text;
}

}  // namespace

int command_merge(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse merge OUT FILE...: combines trace files of one protocol (its shards) into OUT\n\n"
      "Reads each FILE and the parts folder a killed shard leaves beside it; refuses files of different\n"
      "protocols; reports runs held twice (the first FILE's copy is kept) and runs in no FILE. OUT may be one\n"
      "of the FILEs. Exit status 3 when some run is missing or failed (OUT is written all the same).\n\nOptions");
  options.add_options()("help,h", "show this help")("output", po::value<std::string>(), "merged trace file")(
      "files", po::value<std::vector<std::string>>()->multitoken(), "trace files to merge");
  po::positional_options_description positional;
  positional.add("output", 1).add("files", -1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"output", "files"});
  if (exit_status) return *exit_status;
  std::vector<fs::path> inputs;
  for (const auto& file : vm["files"].as<std::vector<std::string>>()) inputs.emplace_back(file);
  const fs::path output = vm["output"].as<std::string>();
  const auto report = glimpse::merge_traces(output, inputs);
  for (const auto& [id, files] : report.duplicates) {
    std::cerr << "run " << id << " is complete in";
    for (const auto& file : files) std::cerr << ' ' << file.string();
    std::cerr << "; kept the first\n";
  }
  std::cerr << output.string() << ": " << report.complete << " of " << report.runs_total << " runs complete";
  if (report.failed) std::cerr << ", " << report.failed << " failed";
  std::cerr << " (from " << inputs.size() << " files)\n";
  if (!report.missing.empty())
    std::cerr << report.missing.size() << " run(s) missing: " << id_list(report.missing)
              << "\n('glimpse status PROTOCOL FILE...' names them and their shards)\n";
  return report.missing.empty() && report.failed == 0 ? 0 : 3;
}

}  // namespace glimpse::cli
