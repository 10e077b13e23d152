// Reading a trace back for display (summary, report, export, tests): the file, its runs, the report's views of the
// grid points, its tables. The core writes traces and reads back only what resuming and assembling need.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hdf5.hpp"
#include "protocol.hpp"
#include "summary.hpp"

namespace glimpse {

// Opens a trace file for reading; Error naming the file when it is missing, not HDF5 or not a glimpse trace.
h5::Handle open_trace_file(const std::filesystem::path& path);

// How the file's runs are summarised (its selection_metric, selection_goal and selection_per_seed attributes).
SelectionRule read_selection(const h5::Handle& file);

// Every run of the file (without curves), in run id order.
std::vector<RunSummary> read_run_summaries(const h5::Handle& file);
// The same from the file's /summary table (one read per column: fast on files of many runs), without the failed
// runs' messages; read_run_summaries when the file has no table yet.
std::vector<RunSummary> read_summary_table(const h5::Handle& file);

// A digest of every run's numbers: its per-round columns, curves and final metrics, in run id order, as 16 hex digits
// (FNV-1a over their values as int64 and IEEE doubles). Timings, dates and file layout do not enter, so two traces of
// the same runs have the same digest whatever the thread count, shard, process or machine that made them
// (glimpse summary --digest; benchmarks/many_core_scaling.sh compares thread counts and machines with it).
std::string trace_digest(const h5::Handle& file);

// The runs behind each row of a summary: what the selection rule chooses (choose_grid_points), or every grid point.
std::vector<SelectedRuns> select_runs(const std::vector<RunSummary>& runs, const std::string& selection_metric,
                                      bool maximize, bool every_grid_point = false, bool per_seed = false);

}  // namespace glimpse

namespace glimpse::h5 {

// One column of a table (write_table), read by name (the other columns are not read).
TableColumn read_table_column(const Handle& parent, const std::string& table, const std::string& column,
                              TableColumn::Type type);
// Every column of such a table, in its stored order, each typed by its HDF5 class (string, integer, float).
std::vector<TableColumn> read_table(const Handle& parent, const std::string& table);
// A 1-D numeric dataset as a column named after it: integer datasets as int64, floating-point ones as double.
TableColumn read_column(const Handle& parent, const std::string& name);

}  // namespace glimpse::h5
