// The glimpse command line: run, merge, status, summary, report, reproduce, datasets, plugins, describe.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dataset_catalog.hpp"
#include "embedded_quickstart.hpp"
#include "glimpse/dataset_file.hpp"
#include "glimpse/error.hpp"
#include "installed_datasets.hpp"
#include "merge_traces.hpp"
#include "mpi_dispatcher.hpp"
#include "new_plugin.hpp"
#include "orchestrator.hpp"
#include "plugin_registry.hpp"
#include "prepared_cache.hpp"
#include "process_dispatcher.hpp"
#include "profile_print.hpp"
#include "progress_line.hpp"
#include "protocol.hpp"
#include "report.hpp"
#include "shard.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "table_export.hpp"
#include "text_table.hpp"
#include "trace_reading.hpp"
#include "trace_store.hpp"

#ifndef GLIMPSE_VERSION_STRING
#define GLIMPSE_VERSION_STRING "unknown"
#endif

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* usage_text = R"(glimpse: online multiclass learning under weak feedback

Usage:
  glimpse run [PROTOCOL] [options]   run a protocol (default: the embedded quickstart)
                                     (--shard I/N: only shard I of N, e.g. one task of a cluster job array;
                                      --mpi: under mpirun, ranks share the sweep and rank 0 writes the file;
                                      --processes N: N processes on this machine share it, for Python learners)
  glimpse merge OUT FILE...          combine the trace files of one protocol's shards into OUT
  glimpse status PROTOCOL FILE...    which runs of PROTOCOL the trace files hold: complete, failed, missing
  glimpse summary FILE [--table [M]] per dataset and learner: chosen grid point, mean (std) over seeds
  glimpse report FILE... [--out DIR] the papers' tables (best in bold, t-tests, ranks, Friedman + Holm) as
                                     md, latex or csv; with --out also learning-curve and sensitivity plots
                                     (--table: datasets x learners as in the papers; --all: every grid point)
  glimpse export FILE [--out DIR]    the summary, the averaged curves or a run's rounds as CSV or JSON
                                     (--table summary|curves|rounds --run ID, --format csv|json)
  glimpse reproduce PAPER [--quick]  run a paper's protocols and write docs/results/PAPER.md from the runs:
                                     the paper's numbers beside ours, each cell's status, the paper's claims
                                     computed, its figures (--list: the papers and the state of their pages)
  glimpse datasets list              datasets of the catalog, and which are installed
  glimpse datasets install [NAME...] install datasets from Debian packages (all without NAME)
  glimpse plugins                    list the plugins that can be loaded
  glimpse new learner NAME [--out D] a working learner plugin to start from: code, unit test, README
  glimpse describe NAME              a plugin's description and parameters
  glimpse --version | --help         ('glimpse COMMAND --help' for a command's options)

Exit status: 0 done; 2 bad input or usage; 3 finished, but some runs failed or are missing (run, merge,
status); 130 interrupted (rerun the same command to resume).

Installed datasets live in $GLIMPSE_DATA (default ~/.cache/glimpse/datasets); a protocol names one as
{"name": "vehicle"}. Datasets as parsed and transformed are kept in $GLIMPSE_DATA/prepared for the next
sweep (GLIMPSE_PREPARED_CACHE=off turns that off; docs/datasets.md).
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

// A command's arguments. When --help is asked for, or one of the `required` arguments is missing, the help is
// printed and `exit_status` is what the command returns (0 or 2).
struct ParsedCommand {
  po::variables_map vm;
  std::optional<int> exit_status;
};
ParsedCommand parse_command(const std::vector<std::string>& args, const po::options_description& options,
                            const po::positional_options_description& positional,
                            std::initializer_list<const char*> required) {
  ParsedCommand parsed{parse(args, options, positional), std::nullopt};
  const bool help = parsed.vm.count("help") > 0;
  if (help || std::any_of(required.begin(), required.end(), [&](const char* name) { return !parsed.vm.count(name); })) {
    std::cout << options << '\n';
    parsed.exit_status = help ? 0 : 2;
  }
  return parsed;
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
      "fail-fast", "stop the sweep at the first failed run (default: record it as failed and go on)")(
      "compact-traces",
      "deflate the per-round 0/1 columns (correct, queried): files about 15% smaller, cheap sweeps about 5% slower "
      "(default: stored as they are; the values read back the same either way)")(
      "profile",
      "after the sweep, print per dataset and learner where the round loop's time went (data access, learner "
      "predict/learn, query rule, oracle, metrics, per-round trace, held-out tests) and its rounds/s")(
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
    const auto complete = glimpse::h5::read_int_attribute(glimpse::open_trace_file(result.output), "runs_complete");
    result.completed_now = complete - result.already_complete;
    result.interrupted = complete + static_cast<std::int64_t>(result.failures.size()) < result.total_runs;
  }
  if (!vm.count("quiet")) {
    glimpse::print_summary(result.output, std::cout);
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
  sweep.fail_fast = vm.count("fail-fast") > 0;
  sweep.compact_traces = vm.count("compact-traces") > 0;
  sweep.profile = vm.count("profile") > 0;
  sweep.log = &std::cerr;
  glimpse::DiskPreparationCache prepared_cache;
  sweep.prepared_cache = &prepared_cache;
  std::optional<glimpse::MpiDispatcher> mpi;
  if (vm.count("mpi")) {
    mpi.emplace();
    sweep.dispatcher = &*mpi;
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
std::string id_list(const std::vector<std::string>& ids, std::size_t limit = 20) {
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < limit; ++i) text += (i ? " " : "") + ids[i];
  if (ids.size() > limit) text += " ... (" + std::to_string(ids.size() - limit) + " more)";
  return text;
}

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

int command_plugins(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse plugins: lists loadable plugins and any library that was refused\n\nOptions");
  options.add_options()("help,h", "show this help")(
      "json", "one JSON object per line: name, kind, version, revision (arithmetic revision) and file");
  const auto vm = parse(args, options, {});
  if (vm.count("help")) {
    std::cout << options << '\n';
    return 0;
  }
  const auto registry = glimpse::PluginRegistry::discover();
  if (vm.count("json")) {
    for (const auto* p : registry.plugins())
      std::cout << "{\"name\": \"" << p->spec->name << "\", \"kind\": \"" << glimpse::plugin_kind_name(p->spec->kind)
                << "\", \"version\": \"" << p->spec->version << "\", \"revision\": " << p->spec->revision
                << ", \"file\": \"" << p->file.string() << "\"}\n";
    for (const auto& problem : registry.problems()) std::cerr << "not loaded: " << problem << '\n';
    return 0;
  }
  glimpse::TextTable table({"kind", "name", "version", "revision", "summary"});
  for (const auto* p : registry.plugins())
    table.add_row({std::string(glimpse::plugin_kind_name(p->spec->kind)), p->spec->name, p->spec->version,
                   std::to_string(p->spec->revision), p->spec->summary});
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
  const auto [vm, exit_status] = parse_command(args, options, positional, {"name"});
  if (exit_status) return *exit_status;
  const auto registry = glimpse::PluginRegistry::discover();
  const std::string name = vm["name"].as<std::string>();
  const glimpse::LoadedPlugin* plugin = registry.find(name);
  if (!plugin) plugin = registry.member(name);  // a family's member: the family's reason when there is none
  if (!plugin) {
    std::string names;
    for (const auto* p : registry.plugins()) names += (names.empty() ? "" : ", ") + p->spec->name;
    throw glimpse::Error("unknown plugin '" + name + "'; available: " + names);
  }
  const auto& spec = *plugin->spec;
  std::cout << spec.name << " (" << glimpse::plugin_kind_name(spec.kind) << ", version " << spec.version
            << ", arithmetic revision " << spec.revision << ")\n"
            << "  " << spec.summary << '\n';
  if (!spec.reference.empty()) std::cout << "  reference: " << spec.reference << '\n';
  if (spec.kind == glimpse::PluginKind::learner) {
    if (!spec.accepts.empty()) {
      std::cout << "  accepts feedback:";
      for (auto k : spec.accepts.kinds()) std::cout << ' ' << glimpse::feedback_kind_name(k);
      std::cout << '\n';
    }
    if (spec.batch)
      std::cout << "  fitted in batch protocols (\"kind\": \"batch\")" << (spec.accepts.empty() ? " only" : "") << '\n';
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

int command_summary(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse summary FILE: per dataset and learner, the grid point chosen by the protocol's selection rule and\n"
      "the mean (std) over seeds of every final metric, then the runs' mean rounds/s and the process's peak\n"
      "memory in MB (the --table view shows the one metric only)\n\nOptions");
  options.add_options()("help,h", "show this help")("file", po::value<std::string>(), "trace file (.h5)")(
      "table", po::value<std::string>()->implicit_value(""),
      "the papers' layout: datasets down, learners across, one metric (default: the selection metric)")(
      "all", "every grid point, not only the chosen one (parameter sensitivity)");
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"file"});
  if (exit_status) return *exit_status;
  const auto view = vm.count("table") ? glimpse::SummaryView::table
                    : vm.count("all") ? glimpse::SummaryView::every_grid_point
                                      : glimpse::SummaryView::rows;
  glimpse::print_summary(vm["file"].as<std::string>(), std::cout, view,
                         vm.count("table") ? vm["table"].as<std::string>() : "");
  return 0;
}

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

int command_new(const std::vector<std::string>& args) {
  po::options_description options(
      "glimpse new learner NAME: a working learner plugin to start from: NAME.cpp (a multiclass Perceptron),\n"
      "NAME_test.cpp (its unit tests, with glimpse/testing.hpp), README.md and CMakeLists.txt. Run at the top of\n"
      "the glimpse tree, it writes plugins/learners/NAME, built and tested with the rest; elsewhere (or with\n"
      "--out), a project of its own built against an installed glimpse\n\nOptions");
  options.add_options()("help,h", "show this help")("kind", po::value<std::string>(), "learner")(
      "name", po::value<std::string>(), "the plugin's name (lower_snake_case)")(
      "out", po::value<std::string>(), "the folder to write (a project of its own)");
  po::positional_options_description positional;
  positional.add("kind", 1).add("name", 1);
  const auto [vm, exit_status] = parse_command(args, options, positional, {"kind", "name"});
  if (exit_status) return *exit_status;
  if (vm["kind"].as<std::string>() != "learner")
    throw glimpse::Error("glimpse new", "only 'learner' has a template so far, got '" + vm["kind"].as<std::string>() +
                                            "' (docs/writing-a-plugin.md shows the other kinds' contracts)");
  const std::string name = vm["name"].as<std::string>();
  const bool in_tree =
      !vm.count("out") && fs::exists("framework/include/glimpse/plugin.hpp") && fs::is_directory("plugins/learners");
  const fs::path folder = vm.count("out") ? fs::path(vm["out"].as<std::string>())
                          : in_tree       ? fs::path("plugins/learners") / name
                                          : fs::path(name);
  for (const auto& file : glimpse::cli::write_new_learner(name, folder, in_tree)) std::cout << file.string() << '\n';
  std::cout << (in_tree
                    ? "in the glimpse tree: `cmake build && cmake --build build` builds it and its tests (they join "
                      "glimpse_tests); its README says how to run them and record its golden fingerprint\n"
                    : "a project of its own: see " + (folder / "README.md").string() + " to build and test it\n");
  return 0;
}

// Runs a program (no shell) with its standard output sent to our standard error; its exit status, or -1.
int run_program(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (failed || waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

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
      "goal", po::value<std::string>(), "max or min: which way is better (default: the file's selection goal)")(
      "alpha", po::value<double>()->default_value(0.05, "0.05"), "significance level of the tests")(
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
  const std::filesystem::path exe_dir(boost::dll::program_location().parent_path().string());
  const auto script = exe_dir.parent_path() / "share" / "glimpse" / "plot_report.py";
  if (!std::filesystem::exists(script)) throw glimpse::Error(script.string(), "the plotting script is missing");
  std::vector<std::string> command{"/usr/bin/python3", script.string(), "--out", out.string(), "--x", x_axis};
  command.insert(command.end(), names.begin(), names.end());
  if (run_program(command) != 0)
    throw glimpse::Error("glimpse report",
                         "drawing the figures failed (needs python3-matplotlib and python3-h5py: "
                         "./tools/install-deps.sh installs them); the tables are written");
  return 0;
}

constexpr const char* reproduce_help =
    R"(glimpse reproduce PAPER [options]: runs the protocols of protocols/PAPER/paper.json (resumably,
into runs/reproduce/full/PAPER/), then writes docs/results/PAPER.md and its figures from the trace files: every
table of the paper with the measured mean (std) beside the paper's, each cell's status (within 1 or 2 paper
std, or outside: explained or UNEXPLAINED), the grid point chosen on the reported trials (the paper's way) and
on held-out trials, the paper's claims computed, its figures as PNG and SVG, the commands, times, version,
commit and a fingerprint of the protocols and the plugins' arithmetic revisions.

  glimpse reproduce --list [--strict]   the papers and the state of each page (up to date, stale: why, never
                                        generated); --strict: exit 1 when a generated page is stale
Options:
  --quick          a few trials on a share of the rows (paper.json's "quick"), into runs/reproduce/quick/PAPER/
                   (the page too): exercises the whole path in minutes; the numbers mean nothing
  --strict         exit 1 when a cell outside 2 paper std or a failed claim has no explanation
  -j, --threads N  worker threads of the runs (0: all cores)
  --shard I/N      run only shard I of N of every protocol; merge with 'glimpse merge', then --page-only
  --mpi LAUNCHER   run every sweep under LAUNCHER with --mpi, e.g. --mpi "mpirun -n 8" (ranks share each
                   sweep, rank 0 writes the file; resumes like any run)
  --processes N    N local processes share each sweep (for Python learners; glimpse run --processes)
  --page-only      write the page from the trace files already in runs/reproduce/ (no runs)
  --root DIR       the folder holding protocols/ and docs/ (default: the current folder)
  --out FILE       write the page (and img/PAPER/) elsewhere
  --runs DIR       keep the trace files in DIR/full/PAPER (or DIR/quick/PAPER) instead of runs/reproduce
Needs /usr/bin/python3 with python3-h5py and python3-matplotlib (./tools/install-deps.sh installs them).
)";

// Hands over to the page generator (share/glimpse/reproduce.py), which runs this executable for the sweeps.
int command_reproduce(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << reproduce_help;
    return 0;
  }
  const std::filesystem::path exe(boost::dll::program_location().string());
  const auto script = exe.parent_path().parent_path() / "share" / "glimpse" / "reproduce.py";
  if (!std::filesystem::exists(script)) throw glimpse::Error(script.string(), "the reproduction script is missing");
  std::vector<std::string> command{"/usr/bin/python3", script.string(), "--glimpse", exe.string()};
  command.insert(command.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : command) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  throw glimpse::Error("/usr/bin/python3", std::string("cannot be started: ") + std::strerror(errno) +
                                               " (./tools/install-deps.sh installs it)");
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f) a write then fails with EFBIG, which is reported like a full disk, instead
  // of the signal killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usage_text;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "glimpse " << GLIMPSE_VERSION_STRING << " (plugin API " << GLIMPSE_PLUGIN_API_VERSION << ", MPI "
              << (glimpse::mpi_available() ? "built in" : "not built") << "; " << GLIMPSE_BUILD_ARITHMETIC << ")\n";
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return command_run(args);
    if (command == "plugins") return command_plugins(args);
    if (command == "describe") return command_describe(args);
    if (command == "summary") return command_summary(args);
    if (command == "report") return command_report(args);
    if (command == "export") return command_export(args);
    if (command == "new") return command_new(args);
    if (command == "merge") return command_merge(args);
    if (command == "status") return command_status(args);
    if (command == "reproduce") return command_reproduce(args);
    if (command == "datasets") return command_datasets(args);
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
