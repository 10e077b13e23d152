// glimpse status: which runs of a protocol the trace files hold.
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "plugin_registry.hpp"
#include "prepared_cache.hpp"
#include "protocol.hpp"
#include "shard.hpp"
#include "sweep_plan.hpp"
#include "text_table.hpp"
#include "trace_assembly.hpp"
#include "trace_store.hpp"

namespace glimpse::cli {

namespace fs = std::filesystem;

int command_status(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse status PROTOCOL FILE...: which runs of PROTOCOL the trace files (and the parts folders of\n"
      "sweeps still running or killed) hold: complete, failed, in flight (started by a sweep that is running,\n"
      "or was killed or crashed), or missing; with the shard of each run not complete. Exit status 3 unless\n"
      "every run is complete.\n\nOptions");
  options.add_options()("help,h", "show this help")("protocol", po::value<std::string>(), "protocol file (JSON)")(
      "files", po::value<std::vector<std::string>>()->multitoken(), "trace files (a sweep's output or its shards')")(
      "shards", po::value<int>(), "number of shards (default: read from the files' \"shard\" attribute)")(
      "all", "list every run not complete (default: failed and in-flight runs, and the first 20 missing)");
  po::positional_options_description positional;
  positional.add("protocol", 1).add("files", -1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"protocol", "files"});
  if (exit_status) return *exit_status;
  const auto registry = glimpse::PluginRegistry::discover();
  const glimpse::Protocol protocol = glimpse::load_protocol_file(vm["protocol"].as<std::string>(), registry);
  const std::string hash = glimpse::protocol_hash_text(protocol);
  std::int32_t shards = vm.count("shards") ? vm["shards"].as<int>() : 0;
  if (vm.count("shards") && shards < 1) throw glimpse::Error("--shards", "expected a number >= 1");
  std::map<std::string, std::string> state;  // run id -> "complete", "in flight" or "failed in round ...: ..."
  for (const auto& file : vm["files"].as<std::vector<std::string>>()) {
    if (!fs::exists(file) && !fs::exists(file + ".parts")) {
      std::cerr << file << ": not found (no run of it has finished)\n";
      continue;
    }
    if (fs::exists(file) && !shards) {
      const auto header = glimpse::TraceHeader::read(file);
      if (!header.shard.empty()) shards = glimpse::parse_shard(header.shard, file + ": attribute shard").count;
    }
    const auto contents = glimpse::read_trace_contents(file, hash, "it does not belong to " + protocol.file);
    for (const auto& id : contents.in_flight) state.emplace(id, "in flight");
    for (const auto& [id, failure] : contents.failed)
      if (state[id] != "complete")
        state[id] = "failed in round " + std::to_string(failure.round) + ": " + failure.error;
    for (const auto& [id, path] : contents.complete) state[id] = "complete";
  }
  glimpse::DiskPreparationCache prepared_cache;
  const glimpse::RunList list = glimpse::list_runs(protocol, &prepared_cache);
  const std::vector<std::int32_t> shard_of =
      shards > 1 ? glimpse::assign_shards(list.costs, shards) : std::vector<std::int32_t>(list.runs.size(), 0);
  std::int64_t complete = 0, failed = 0, in_flight = 0, missing = 0;
  glimpse::TextTable table({"run", "shard", "learner", "dataset", "seed", "params", "status"});
  for (std::size_t i = 0; i < list.runs.size(); ++i) {
    const auto& run = list.runs[i];
    const auto it = state.find(run.id);
    const std::string status = it == state.end() ? "missing" : it->second;
    if (status == "complete") {
      ++complete;
      continue;
    }
    const bool is_missing = status == "missing";
    ++(is_missing ? missing : status == "in flight" ? in_flight : failed);
    if (is_missing && !vm.count("all") && missing > 20) continue;
    table.add_row({run.id, shards > 1 ? std::to_string(shard_of[i]) + "/" + std::to_string(shards) : "-",
                   protocol.learners[static_cast<std::size_t>(run.learner)].output_name,
                   protocol.datasets[static_cast<std::size_t>(run.dataset)].name, std::to_string(run.seed),
                   run.learner_params.to_json(), status});
  }
  const auto total = static_cast<std::int64_t>(list.runs.size());
  std::cout << protocol.file << ": " << total << " runs: " << complete << " complete, " << failed << " failed, "
            << in_flight << " in flight, " << missing << " missing\n";
  if (complete < total) {
    std::cout << '\n';
    table.print(std::cout);
    if (missing > 20 && !vm.count("all"))
      std::cout << "... and " << missing - 20 << " more missing (--all lists them)\n";
  }
  return complete == total ? 0 : 3;
}

}  // namespace glimpse::cli
