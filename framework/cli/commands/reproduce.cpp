// glimpse reproduce: hands over to the page generator, the Python package's glimpse.reproduce.
#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glimpse/error.hpp"

namespace glimpse::cli {

namespace {

constexpr const char* reproduce_help =
    R"(glimpse reproduce PAPER [options]: runs the protocols of protocols/PAPER/paper.json (resumably,
into runs/reproduce/full/PAPER/), then writes docs/results/PAPER.md, its figures and its ledger
(docs/results/PAPER.cells.csv: every trial behind every cell, with its run) from the trace files: every table of
the paper with the measured mean (std) beside the paper's, each cell's status judged on the held-out column (within
1 or 2 paper std, or outside: explained by a run on the page, or UNEXPLAINED), the paper's claims computed (holds
only where a test at the page's level agrees; else a tie or fails), its figures as PNG and SVG, the commands,
times, version, commit and a fingerprint of everything that can move a number. A page is written only from a
committed tree and by the reference build (glimpse --version says whether this is it).

  glimpse reproduce --list [--strict]   the papers and the state of each page (up to date, stale: why, never
                                        generated); --strict: exit 1 when a generated page is stale
  glimpse reproduce PAPER --verify [--sample N] [--seed S] [--max-seconds T]
                   reruns the runs behind N cells of the page's ledger chosen at random (drawn with seed S;
                   default: all cells; with --sample, skipping a drawn cell that would take the sample past T
                   seconds of the runs' recorded time, when N is below the ledger's number of cells; T without
                   --sample is refused), and compares them with the ledger bit for bit: exit 1 naming the cells
                   that differ
Options:
  --quick          a few trials on a share of the rows (paper.json's "quick"), into runs/reproduce/quick/PAPER/
                   (the page and ledger too): exercises the whole path in minutes; the numbers mean nothing
  --strict         exit 1 when a cell outside 2 paper std or a failed claim has no explanation
  -j, --threads N  worker threads of the runs (0: all cores)
  --shard I/N      run only shard I of N of every protocol; merge with 'glimpse merge', then --page-only
  --mpi LAUNCHER   run every sweep under LAUNCHER with --mpi, e.g. --mpi "mpirun -n 8" (ranks share each
                   sweep, rank 0 writes the file; resumes like any run)
  --processes N    N local processes share each sweep (for Python learners; glimpse run --processes)
  --page-only      write the page from the trace files already in runs/reproduce/ (no runs)
  --allow-unreproducible
                   write docs/results/PAPER.md from a tree with uncommitted changes or a build that is not the
                   reference arithmetic; the page then says it cannot be reproduced
  --root DIR       the folder holding protocols/ and docs/ (default: the current folder)
  --out FILE       write the page (and img/PAPER/) elsewhere
  --runs DIR       keep the trace files in DIR/full/PAPER (or DIR/quick/PAPER) instead of runs/reproduce
Needs /usr/bin/python3 with python3-h5py, python3-scipy and python3-matplotlib (./tools/install-deps.sh installs
them).
)";

bool has_option(const std::vector<std::string>& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& arg) { return arg == name || arg.starts_with(name + "="); });
}

}  // namespace

// Hands over to the page generator (the Python package's glimpse.reproduce), which runs this executable for the sweeps.
int command_reproduce(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << reproduce_help;
    return 0;
  }
  // The generator reruns every cell when --verify has no --sample, whatever T is: refused here rather than ignored
  // there. (The generator is in every paper page's fingerprint, so applying T there means regenerating them.)
  if (has_option(args, "--verify") && has_option(args, "--max-seconds") && !has_option(args, "--sample")) {
    throw Error("--max-seconds",
                "bounds the time of a --sample of cells, and --verify without --sample reruns every cell of the "
                "ledger whatever T is: give --sample N as well (N below the ledger's number of cells), or leave "
                "--max-seconds out");
  }
  std::vector<std::string> module_args{"--glimpse", boost::dll::program_location().string()};
  module_args.insert(module_args.end(), args.begin(), args.end());
  exec_python_module("glimpse.reproduce", module_args);
}

}  // namespace glimpse::cli
