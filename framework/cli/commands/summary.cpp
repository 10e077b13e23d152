// glimpse summary: per dataset and learner, the chosen grid point and mean (std) over seeds.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "summary_print.hpp"
#include "trace_reading.hpp"

namespace glimpse::cli {

int command_summary(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse summary FILE: per dataset and learner, the grid point chosen by the protocol's selection rule and\n"
      "the mean (std) over seeds of every final metric, then the runs' mean rounds/s and the process's peak\n"
      "memory in MB (the --table view shows the one metric only)\n\nOptions");
  options.add_options()("help,h", "show this help")("file", po::value<std::string>(), "trace file (.h5)")(
      "table", po::value<std::string>()->implicit_value(""),
      "the papers' layout: datasets down, learners across, one metric (default: the selection metric)")(
      "all", "every grid point, not only the chosen one (parameter sensitivity)")(
      "digest",
      "print only a digest of every run's numbers (per-round columns, curves, final metrics; not timings): two traces "
      "of the same runs have the same digest on any machine, thread count or shard");
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"file"});
  if (exit_status) return *exit_status;
  if (vm.count("digest")) {
    std::cout << trace_digest(open_trace_file(vm["file"].as<std::string>())) << '\n';
    return 0;
  }
  const auto view = vm.count("table") ? glimpse::SummaryView::table
                    : vm.count("all") ? glimpse::SummaryView::every_grid_point
                                      : glimpse::SummaryView::rows;
  glimpse::print_summary(vm["file"].as<std::string>(), std::cout, view,
                         vm.count("table") ? vm["table"].as<std::string>() : "");
  return 0;
}

}  // namespace glimpse::cli
