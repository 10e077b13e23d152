// glimpse run: a protocol's sweep, its progress, its summary and its exit status.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "embedded_quickstart.hpp"
#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "mpi_dispatcher.hpp"
#include "orchestrator.hpp"
#include "plugin_registry.hpp"
#include "prepared_cache.hpp"
#include "process_dispatcher.hpp"
#include "profile_print.hpp"
#include "progress_line.hpp"
#include "protocol.hpp"
#include "shard.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "trace_reading.hpp"
#include "trace_schema.hpp"

namespace glimpse::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> interrupt_requested{false};

extern "C" void on_interrupt(int) {
  interrupt_requested = true;
  // A second Ctrl-C ends the process at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

po::options_description run_options() {
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
      "stop-after", po::value<long long>(), "stop after this many new runs, as if interrupted (for testing resume)")(
      "shard", po::value<std::string>(),
      "I/N: run only shard I (0-based) of N, into runs/NAME.shard-I-of-N.h5 unless --output; every process "
      "derives the same split from the protocol; combine the files with 'glimpse merge'")(
      "only", po::value<std::string>(),
      "IDS: run only these runs (comma-separated ids, as the summary's run column names them), e.g. to rerun the runs "
      "behind a results page's cells (glimpse reproduce --verify); each gives the same numbers as in the whole sweep")(
      "fail-fast", "stop the sweep at the first failed run (default: record it as failed and go on)")(
      "compact-traces",
      "deflate the per-round 0/1 columns (correct, queried): files about 15% smaller, cheap sweeps about 5% slower "
      "(default: stored as they are; the values read back the same either way)")(
      "profile",
      "after the sweep, print where its time went thread by thread (setting runs up, running them, waiting for and "
      "holding the trace writer, idle at the end; planning and finishing; the serial share of the work), then per "
      "dataset and learner where the round loop's time went (data access, learner predict/learn, query rule, oracle, "
      "metrics, per-round trace, held-out tests) and its rounds/s. Timing every phase of every round costs time "
      "(tens of ns per round): for the sweep's own timings use --sweep-profile")(
      "sweep-profile",
      "after the sweep, print only where its time went thread by thread (as --profile's first table), which costs "
      "nothing: the round loop is not timed")(
      "mpi",
      "share the sweep among the ranks of 'mpirun -n P glimpse run ... --mpi': rank 0 hands out runs as ranks "
      "ask and writes the one output (which must be on a file system all ranks see); each rank uses --threads")(
      "processes,p", po::value<int>()->default_value(1),
      "share the sweep among N processes on this machine (for learners that cannot use threads: Python's); each "
      "uses --threads (default: the cores divided among them); the traces are the same");
  return options;
}

// What a finished `glimpse run` prints (the summary, the --profile table, the counts) and its exit status.
int report_run(glimpse::SweepResult& result, const po::variables_map& vm,
               const glimpse::cli::ProcessDispatcher* local) {
  if (local && local->lost_helpers()) {
    // A dead helper never said what it finished; the assembled output knows.
    const auto complete =
        glimpse::h5::read_int_attribute(glimpse::open_trace_file(result.output), glimpse::schema::root::runs_complete);
    result.completed_now = complete - result.already_complete;
    result.interrupted = complete + static_cast<std::int64_t>(result.failures.size()) < result.total_runs;
  }
  if (!vm.count("quiet")) {
    glimpse::print_summary(result.output, std::cout);
    std::cout << '\n';
  }
  if (vm.count("profile") || vm.count("sweep-profile")) {
    glimpse::print_sweep_profile(result.sweep_profile, std::cout);
    std::cout << '\n';
  }
  if (vm.count("profile")) {
    if (result.profiles.empty())
      std::cout << "--profile: no online run was done this time (batch runs and runs already in the file are not "
                   "profiled)\n\n";
    else
      glimpse::print_profile(result.profiles, std::cout), std::cout << '\n';
  }
  const double rate = glimpse::rounds_per_second(result.rounds, result.seconds);
  std::fprintf(stderr, "%s: %lld of %lld runs complete (%lld this time, %.3g rounds/s overall, %.2f s)\n",
               result.output.c_str(), static_cast<long long>(result.already_complete + result.completed_now),
               static_cast<long long>(result.total_runs), static_cast<long long>(result.completed_now), rate,
               result.seconds);
  if (!result.failures.empty())
    std::fprintf(stderr, "%zu run(s) failed (listed above and by 'glimpse summary'); rerunning retries them\n",
                 result.failures.size());
  if (result.interrupted) {
    std::fprintf(stderr, "interrupted: run the same command again to resume\n");
    return 130;
  }
  return result.failures.empty() ? 0 : 3;
}

}  // namespace

int command_run(const std::vector<std::string>& args) {
  const po::options_description options = run_options();
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
  if (vm.count("output")) sweep.output = vm["output"].as<std::string>();
  if (vm.count("stop-after")) sweep.stop_after = vm["stop-after"].as<long long>();
  if (vm.count("shard")) sweep.shard = glimpse::parse_shard(vm["shard"].as<std::string>(), "--shard");
  if (vm.count("only")) {
    std::stringstream ids(vm["only"].as<std::string>());
    for (std::string id; std::getline(ids, id, ',');)
      if (!id.empty()) sweep.only.push_back(id);
  }
  sweep.fail_fast = vm.count("fail-fast") > 0;
  sweep.compact_traces = vm.count("compact-traces") > 0;
  sweep.profile = vm.count("profile") > 0;
  sweep.log = &std::cerr;
  glimpse::DiskPreparationCache prepared_cache;
  sweep.prepared_cache = &prepared_cache;
  std::unique_ptr<glimpse::RunDispatcher> mpi;
  if (vm.count("mpi")) {
    mpi = glimpse::make_mpi_dispatcher();
    sweep.dispatcher = mpi.get();
  }
  const int processes = vm["processes"].as<int>();
  if (processes < 1) throw glimpse::Error("--processes", "expected a number >= 1");
  std::optional<glimpse::cli::ProcessDispatcher> local;
  if (const char* connection = std::getenv(glimpse::cli::process_helper_variable)) {
    local.emplace(std::atoi(connection));  // started by a coordinating `glimpse run --processes N`
    sweep.dispatcher = &*local;
  } else if (processes > 1) {
    if (mpi) throw glimpse::Error("--processes", "cannot be combined with --mpi (use more ranks instead)");
    local.emplace(processes, args);
    sweep.dispatcher = &*local;
  }
  if (processes > 1 && sweep.threads == 0)
    sweep.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / processes);
  const bool helper_rank = sweep.dispatcher && !sweep.dispatcher->coordinator();  // (no progress line there)
  std::optional<glimpse::ProgressLine> progress_line;
  if (!vm.count("quiet")) sweep.observer = &progress_line.emplace(protocol.selection);
  sweep.interrupt = &interrupt_requested;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);

  auto result = glimpse::run_sweep(protocol, sweep);
  if (helper_rank) return result.failures.empty() ? 0 : 3;  // rank 0 reports for every rank
  return report_run(result, vm, local ? &*local : nullptr);
}

// The first `limit` ids of a list, then how many more.

}  // namespace glimpse::cli
