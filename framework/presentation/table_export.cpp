#include "table_export.hpp"

#include <cmath>

#include "glimpse/error.hpp"
#include "glimpse/params.hpp"
#include "trace_reading.hpp"
#include "trace_schema.hpp"

namespace glimpse {

ExportFormat parse_export_format(const std::string& name) {
  if (name == "csv") return ExportFormat::csv;
  if (name == "json") return ExportFormat::json;
  throw Error("--format", "expected csv or json, got '" + name + "'");
}

std::vector<h5::TableColumn> read_trace_table(const h5::Handle& file, const std::string& file_name,
                                              const std::string& table, const std::string& run) {
  if (table == "summary" || table == "curves") {
    const std::string stored = table == "summary" ? schema::root::summary : schema::root::curve_summary;
    if (!h5::exists(file, stored))
      throw Error(file_name, "has no /" + stored + " table (a trace file still being written has none yet)");
    return h5::read_table(file, stored);
  }
  if (table != "rounds") throw Error("--table", "expected summary, curves or rounds, got '" + table + "'");
  if (run.empty()) throw Error("--table rounds", "needs --run ID (the run's id, e.g. 000003)");
  const std::string path = schema::run_group(run) + "/" + schema::run::rounds_group;
  if (!h5::exists(file, path))
    throw Error(file_name,
                "has no run '" + run + "' with per-round data (" + path + "); the summary's run column lists the runs");
  const h5::Handle rounds = h5::open_group(file, path);
  std::vector<h5::TableColumn> columns;
  for (const auto& name : h5::children(rounds)) columns.push_back(h5::read_column(rounds, name));
  return columns;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_text(const std::string& text) { return param_value_json(ParamValue(text)); }

namespace {
std::size_t row_count(const h5::TableColumn& c) {
  using Type = h5::TableColumn::Type;
  return c.type == Type::text ? c.texts.size() : c.type == Type::integer ? c.integers.size() : c.reals.size();
}

// One cell's text in the format: CSV leaves NaN empty and spells infinities as R and pandas read them; JSON has
// no such numbers, so both are null there.
std::string cell(const h5::TableColumn& c, std::size_t row, ExportFormat format) {
  using Type = h5::TableColumn::Type;
  const bool csv = format == ExportFormat::csv;
  if (c.type == Type::text) return csv ? csv_field(c.texts[row]) : json_text(c.texts[row]);
  if (c.type == Type::integer) return std::to_string(c.integers[row]);
  const double v = c.reals[row];
  if (std::isfinite(v)) return param_value_json(ParamValue(v));
  if (!csv) return "null";
  return std::isnan(v) ? "" : v > 0 ? "Inf" : "-Inf";
}
}  // namespace

void write_table(const std::vector<h5::TableColumn>& columns, ExportFormat format, std::ostream& out) {
  std::size_t rows = 0;
  for (const auto& c : columns) rows = std::max(rows, row_count(c));
  for (const auto& c : columns)
    if (row_count(c) != rows) throw Error("export", "column '" + c.name + "' is shorter than the others");
  if (format == ExportFormat::csv) {
    for (std::size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << csv_field(columns[i].name);
    out << '\n';
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << cell(columns[i], r, format);
      out << '\n';
    }
    return;
  }
  out << '[';
  for (std::size_t r = 0; r < rows; ++r) {
    out << (r ? ",\n " : "\n ") << '{';
    for (std::size_t i = 0; i < columns.size(); ++i)
      out << (i ? ", " : "") << json_text(columns[i].name) << ": " << cell(columns[i], r, format);
    out << '}';
  }
  out << "\n]\n";
}

}  // namespace glimpse
