// glimpse report: the papers' tables from trace files, and their figures.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"
#include "report.hpp"

namespace glimpse::cli {

int command_report(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse report FILE... [options]: the papers' tables from trace files. Per dataset and learner, the chosen\n"
      "grid point and mean (std) over seeds of a final metric; the best per dataset in bold, the learners not\n"
      "significantly different from it (paired t-test over shared seeds) marked; average ranks, the Friedman test\n"
      "and Holm's comparisons with the best-ranked learner. Several files (e.g. two versions of a learner on one\n"
      "protocol) make one table, their learners named 'label [file]'. With --out, also writes report.md,\n"
      "report.tex, report.csv and the figures (learning curves, parameter sensitivity, regret ratio; PNG and SVG,\n"
      "drawn by python3-matplotlib)\n\nOptions");
  options.add_options()("help,h", "show this help")("files", po::value<std::vector<std::string>>(),
                                                    "trace files (.h5)")(
      "format", po::value<std::string>()->default_value("md"), "table format on standard output: md, latex or csv")(
      "metric", po::value<std::vector<std::string>>(),
      "a final metric to tabulate (repeatable; default: the selection metric)")(
      "goal", po::value<std::string>(),
      "max or min: which way is better (default: the goal of the file selecting by the metric; required for "
      "another metric)")("alpha", po::value<double>()->default_value(0.05, "0.05"), "significance level of the tests")(
      "bootstrap", po::value<std::int64_t>()->default_value(0),
      "show 95% bootstrap intervals of the mean from this many resamples instead of the std")(
      "out", po::value<std::string>(), "folder for report.{md,tex,csv} and the figures")(
      "x", po::value<std::string>()->default_value("rounds"), "learning curves against rounds or queries")(
      "no-plots", "with --out: tables only");
  po::positional_options_description positional;
  positional.add("files", -1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"files"});
  if (exit_status) return *exit_status;
  glimpse::ReportOptions report_options;
  if (vm.count("metric")) report_options.metrics = vm["metric"].as<std::vector<std::string>>();
  if (vm.count("goal")) {
    const auto goal = vm["goal"].as<std::string>();
    if (goal != "max" && goal != "min") throw glimpse::Error("--goal", "expected max or min, got '" + goal + "'");
    report_options.maximize = goal == "max";
  }
  report_options.alpha = vm["alpha"].as<double>();
  if (!(report_options.alpha > 0.0 && report_options.alpha < 1.0))
    throw glimpse::Error("--alpha", "expected a level in (0, 1)");
  report_options.bootstrap = vm["bootstrap"].as<std::int64_t>();
  if (report_options.bootstrap < 0) throw glimpse::Error("--bootstrap", "expected a number of resamples >= 0");
  const auto x_axis = vm["x"].as<std::string>();
  if (x_axis != "rounds" && x_axis != "queries")
    throw glimpse::Error("--x", "expected rounds or queries, got '" + x_axis + "'");
  const auto names = vm["files"].as<std::vector<std::string>>();
  const std::vector<std::filesystem::path> files(names.begin(), names.end());
  const auto reports = glimpse::build_report(files, report_options);
  glimpse::write_report(reports, report_options, glimpse::parse_report_format(vm["format"].as<std::string>()),
                        std::cout);
  if (!vm.count("out")) return 0;
  const std::filesystem::path out = vm["out"].as<std::string>();
  std::filesystem::create_directories(out);
  for (const auto& [name, format] :
       {std::pair{"report.md", glimpse::ReportFormat::markdown}, std::pair{"report.tex", glimpse::ReportFormat::latex},
        std::pair{"report.csv", glimpse::ReportFormat::csv}}) {
    std::ofstream file(out / name);
    glimpse::write_report(reports, report_options, format, file);
    if (!file) throw glimpse::Error((out / name).string(), "cannot write the report");
    std::cerr << (out / name).string() << '\n';
  }
  if (vm.count("no-plots")) return 0;
  std::vector<std::string> figure_args{"--out", out.string(), "--x", x_axis};
  figure_args.insert(figure_args.end(), names.begin(), names.end());
  if (run_python_module("glimpse.report_figures", figure_args) != 0)
    throw glimpse::Error("glimpse report",
                         "drawing the figures failed (needs python3-matplotlib and python3-h5py: "
                         "./tools/install-deps.sh installs them); the tables are written");
  return 0;
}

}  // namespace glimpse::cli
