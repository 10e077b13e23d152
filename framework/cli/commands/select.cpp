// glimpse select: the core's selection of grid points (the rule glimpse summary applies), as JSON lines, for
// programs that report a selection of their own (the Python package's Trace.select, the results pages).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "table_export.hpp"
#include "trace_reading.hpp"

namespace glimpse::cli {

namespace {

// "0-9,20,22": the seeds a list names.
std::vector<std::int64_t> parse_seed_list(const std::string& text) {
  std::vector<std::int64_t> seeds;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    try {
      std::size_t used = 0;
      const std::int64_t first = std::stoll(item, &used);
      std::int64_t last = first;
      if (used < item.size()) {
        if (item[used] != '-') throw std::invalid_argument(item);
        std::size_t rest = 0;
        last = std::stoll(item.substr(used + 1), &rest);
        if (used + 1 + rest != item.size() || last < first) throw std::invalid_argument(item);
      }
      for (std::int64_t s = first; s <= last; ++s) seeds.push_back(s);
    } catch (const std::logic_error&) {
      throw Error("--seeds", "expected seeds such as 0-9,20,22, got '" + text + "'");
    }
    start = end + 1;
  }
  return seeds;
}

}  // namespace

int command_select(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse select FILE [options]: per dataset and learner label, the grid point the selection rule chooses (the\n"
      "best mean of a final metric over the runs, as glimpse summary chooses) and the runs behind it, one JSON object\n"
      "per line: {\"dataset\", \"label\", \"params\", \"runs\": [{\"run\", \"seed\", \"params\"}]}\n\nOptions");
  options.add_options()("help,h", "show this help")("file", po::value<std::string>(), "trace file (.h5)")(
      "metric", po::value<std::string>(), "the final metric to choose by (default: the file's selection metric)")(
      "goal", po::value<std::string>(),
      "max or min (default: the file's selection goal; required with a --metric other than the file's)")(
      "seeds", po::value<std::string>(),
      "choose on these seeds' runs only (e.g. 10-19); a grid point lacking one of them cannot be chosen, and "
      "seeds of which the file has no run are an error")(
      "per-seed", "each seed's own best run instead of the best mean (as cross-validation chooses per split)");
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"file"});
  if (exit_status) return *exit_status;
  const h5::Handle file = open_trace_file(vm["file"].as<std::string>());
  const SelectionRule rule = read_selection(file);
  const std::string metric = vm.count("metric") ? vm["metric"].as<std::string>() : rule.metric;
  bool maximize = rule.maximize;
  if (vm.count("goal")) {
    const auto goal = vm["goal"].as<std::string>();
    if (goal != "max" && goal != "min") throw Error("--goal", "expected max or min, got '" + goal + "'");
    maximize = goal == "max";
  } else if (metric != rule.metric) {
    // The file knows which way is better only for its selection metric; taking that goal for another metric
    // chose the worst grid point whenever the two point opposite ways (accuracy against a confusion norm).
    throw Error("--metric " + metric, goal_not_known(rule.metric + (rule.maximize ? " (max)" : " (min)"), 1));
  }
  std::vector<RunSummary> runs = read_summary_table(file);
  std::vector<std::int64_t> seeds;
  if (vm.count("seeds")) {
    seeds = parse_seed_list(vm["seeds"].as<std::string>());
    std::string held;  // the file's seeds, "0 to 9", for the error below
    if (!runs.empty()) {
      const auto [lowest, highest] = std::minmax_element(
          runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) { return a.seed < b.seed; });
      held = std::to_string(lowest->seed) + " to " + std::to_string(highest->seed);
    }
    std::erase_if(runs,
                  [&](const RunSummary& r) { return std::find(seeds.begin(), seeds.end(), r.seed) == seeds.end(); });
    // Seeds the file does not hold chose nothing, silently: an empty answer looked like a file without learners.
    if (runs.empty() && !held.empty())
      throw Error("--seeds " + vm["seeds"].as<std::string>(),
                  vm["file"].as<std::string>() + " has no run of these seeds (its runs' seeds: " + held + ")");
  }
  for (const auto& choice :
       choose_grid_points(runs, metric, maximize, vm.count("per-seed") > 0, vm.count("seeds") ? &seeds : nullptr)) {
    std::cout << "{\"dataset\": " << json_text(choice.dataset) << ", \"label\": " << json_text(choice.learner)
              << ", \"params\": " << json_text(choice.params) << ", \"runs\": [";
    for (std::size_t i = 0; i < choice.runs.size(); ++i)
      std::cout << (i ? ", " : "") << "{\"run\": " << json_text(choice.runs[i]->id)
                << ", \"seed\": " << choice.runs[i]->seed << ", \"params\": " << json_text(choice.runs[i]->params)
                << "}";
    std::cout << "]}\n";
  }
  return 0;
}

}  // namespace glimpse::cli
