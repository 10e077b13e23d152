// A trace file's tables as CSV or JSON, for tools that do not read HDF5 (`glimpse export`).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "hdf5.hpp"

namespace glimpse {

enum class ExportFormat { csv, json };
ExportFormat parse_export_format(const std::string& name);  // csv or json; Error otherwise

// One table of a trace file, by the name `glimpse export --table` takes:
//   summary  /summary, one row per run (run, dataset, learner, label, params, seed, ..., one column per metric)
//   curves   /curve_summary, the learning curves averaged over seeds, in long form
//   rounds   /runs/RUN/rounds, one row per round of run RUN
// Error naming the file when the table or run is not there.
std::vector<h5::TableColumn> read_trace_table(const h5::Handle& file, const std::string& file_name,
                                              const std::string& table, const std::string& run = "");

// CSV: a header row, then one line per row; fields holding a comma, quote or line break are quoted (RFC 4180);
// a missing number (NaN) is an empty field, infinities are Inf and -Inf. JSON: an array with one object per row;
// NaN and infinities are null. Numbers are written in the shortest form that reads back to the same double.
void write_table(const std::vector<h5::TableColumn>& columns, ExportFormat format, std::ostream& out);

// A CSV field: as is, or quoted with its quotes doubled when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);
// TEXT as a JSON string (quoted and escaped).
std::string json_text(const std::string& text);

}  // namespace glimpse
