// The table of commands: what `glimpse --help` lists and main.cpp dispatches through.
#include "commands.hpp"

namespace glimpse::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"run", R"([PROTOCOL] [options]   run a protocol (default: the embedded quickstart)
                                     (--shard I/N: only shard I of N, e.g. one task of a cluster job array;
                                      --mpi: under mpirun, ranks share the sweep and rank 0 writes the file;
                                      --processes N: N processes on this machine share it, for Python learners;
                                      --only IDS: only those runs, e.g. to check some against a ledger)
)",
       command_run},
      {"merge", "OUT FILE...          combine the trace files of one protocol's shards into OUT\n", command_merge},
      {"status", "PROTOCOL FILE...    which runs of PROTOCOL the trace files hold: complete, failed, missing\n",
       command_status},
      {"summary", "FILE [--table [M]] per dataset and learner: chosen grid point, mean (std) over seeds\n",
       command_summary},
      {"select", R"(FILE --metric M     the grid point the selection rule chooses per dataset and learner, and its
                                     runs, as JSON lines (--seeds: choose on those seeds only; --per-seed)
)",
       command_select},
      {"report", R"(FILE... [--out DIR] the papers' tables (best in bold, t-tests, ranks, Friedman + Holm) as
                                     md, latex or csv; with --out also learning-curve and sensitivity plots
                                     (--table: datasets x learners as in the papers; --all: every grid point)
)",
       command_report},
      {"export", R"(FILE [--out DIR]    the summary, the averaged curves or a run's rounds as CSV or JSON
                                     (--table summary|curves|rounds --run ID, --format csv|json)
)",
       command_export},
      {"reproduce", R"(PAPER [--quick]  run a paper's protocols and write docs/results/PAPER.md and its ledger:
                                     the paper's numbers beside ours, each cell's status, the paper's claims
                                     tested, its figures (--list: the state of the pages; --verify: rerun
                                     a sample of a page's cells and compare them bit for bit)
)",
       command_reproduce},
      {"datasets", R"(list | install [NAME...]
                                     datasets of the catalog and which are installed; install them from
                                     Debian packages (all without NAME)
)",
       command_datasets},
      {"plugins", "                   list the plugins that can be loaded (--json: with their declarations)\n",
       command_plugins},
      {"new", "learner NAME [--out D] a working learner plugin to start from: code, unit test, README\n", command_new},
      {"describe", "NAME              a plugin's description and parameters\n", command_describe},
  };
  return table;
}

}  // namespace glimpse::cli
