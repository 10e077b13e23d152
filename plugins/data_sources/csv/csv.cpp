// Delimited text (CSV, TSV): one row per line, one column holding the label, the others numeric features.
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/text_input.hpp>
#include <set>

namespace {

using glimpse::Error;
namespace readers = glimpse::readers;

// Splits a line at `delimiter`, honouring double quotes ("a,b" is one field; "" inside quotes is a quote).
std::vector<std::string> split_fields(std::string_view line, char delimiter) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        fields.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == delimiter) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  for (auto& f : fields) f = std::string(readers::trim(f));
  return fields;
}

class CsvSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "csv",
        .kind = glimpse::PluginKind::data_source,
        .summary = "reads delimited text: one column is the label, the others numeric features (dense)",
        .params = {
            glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)").mandatory(),
            glimpse::ParamSpec::text("label_column", "last",
                                     "the label's column: first, last, a 1-based number, or a header name"),
            glimpse::ParamSpec::text("ignore_columns", "", "columns to drop, comma-separated numbers or header names"),
            glimpse::ParamSpec::choice("header", "auto", {"auto", "yes", "no"},
                                       "whether the first line names the columns (auto: when none of its "
                                       "fields is a number)"),
            glimpse::ParamSpec::integer("skip_lines", "0", "lines to skip before the header or the data").at_least(0),
            glimpse::ParamSpec::choice("delimiter", "comma", {"comma", "tab", "semicolon", "space"}, "field separator"),
            glimpse::ParamSpec::integer("num_classes", "0",
                                        "0: the sorted distinct labels become classes 1..K; K > 0: labels "
                                        "must be the integers 1..K")
                .at_least(0),
            readers::non_finite_param()}};
  }
  explicit CsvSource(const glimpse::ParamValues& params)
      : path_(params.path("path")),
        label_column_(params.text("label_column")),
        ignore_columns_(params.text("ignore_columns")),
        header_(params.text("header")),
        skip_lines_(params.integer("skip_lines")),
        num_classes_(params.integer("num_classes")),
        non_finite_to_zero_(params.text("non_finite") == "zero") {
    const std::string& d = params.text("delimiter");
    delimiter_ = d == "tab" ? '\t' : d == "semicolon" ? ';' : d == "space" ? ' ' : ',';
  }

  glimpse::Dataset load() override {
    const auto& file = path_;
    const std::string name = file.string();
    std::vector<std::string> header;
    std::vector<bool> keep;  // per column: a feature (not the label, not ignored)
    std::size_t label = 0, columns = 0;
    readers::RawLabels raw_labels;
    std::vector<glimpse::Feature> values;
    std::int64_t d = 0;
    bool first = true;
    readers::for_each_file_line(file, [&](std::int64_t line_number, std::string_view line) {
      if (line_number <= skip_lines_ || readers::trim(line).empty()) return;
      const auto where = [&] { return name + ":" + std::to_string(line_number); };
      auto fields = delimiter_ == ' ' ? split_blanks(line) : split_fields(line, delimiter_);
      if (first) {
        first = false;
        columns = fields.size();
        if (columns < 2) throw Error(where(), "expected at least 2 columns (a label and a feature), got 1");
        bool any_number = false;
        for (const auto& f : fields) {
          double v = 0;
          any_number = any_number || readers::parse_number(f, v);
        }
        const bool is_header = header_ == "yes" || (header_ == "auto" && !any_number);
        if (is_header) header = fields;
        label = resolve_column(label_column_, header, columns, where() + ": label_column");
        keep.assign(columns, true);
        keep[label] = false;
        if (!ignore_columns_.empty())
          for (const auto& item : split_fields(ignore_columns_, ','))
            keep[resolve_column(item, header, columns, where() + ": ignore_columns")] = false;
        for (bool k : keep) d += k;
        if (d == 0) throw Error(where(), "no feature column is left");
        if (is_header) return;
      }
      if (fields.size() != columns)
        throw Error(where(), "expected " + std::to_string(columns) + " fields, got " + std::to_string(fields.size()));
      for (std::size_t c = 0; c < columns; ++c) {
        if (!keep[c]) continue;
        double v = 0;
        const bool missing = fields[c].empty() || fields[c] == "?" || fields[c] == "NA";
        if (!missing && !readers::parse_number(fields[c], v))
          throw Error(where(), "column " + column_name(c, header) + ": expected a number, got '" + fields[c] + "'");
        if (missing || !std::isfinite(v)) {
          if (!non_finite_to_zero_)
            throw Error(where(), "column " + column_name(c, header) + ": " +
                                     (missing ? "missing value" : "value is not finite") + " ('" + fields[c] +
                                     "'; the source's non_finite parameter can read it as 0)");
          v = 0;
        }
        values.push_back(static_cast<glimpse::Feature>(v));
      }
      if (fields[label].empty()) throw Error(where(), "the label is missing");
      raw_labels.add(fields[label], line_number);
    });
    if (raw_labels.texts.empty()) throw Error(name, "no data rows");
    auto classes = readers::assign_classes(raw_labels, num_classes_, name);
    const auto n = static_cast<std::int64_t>(classes.labels.size());
    auto data = glimpse::Dataset::dense(n, static_cast<std::int32_t>(d), std::move(values), std::move(classes.labels),
                                        static_cast<std::int32_t>(classes.names.size()));
    readers::take_class_names(data, classes);
    return data;
  }

 private:
  static std::vector<std::string> split_blanks(std::string_view line) {
    std::vector<std::string> fields;
    std::size_t p = 0;
    while (p < line.size()) {
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      const std::size_t start = p;
      while (p < line.size() && line[p] != ' ' && line[p] != '\t') ++p;
      if (p > start) fields.emplace_back(line.substr(start, p - start));
    }
    return fields;
  }
  static std::string column_name(std::size_t c, const std::vector<std::string>& header) {
    return header.empty() ? std::to_string(c + 1) : "'" + header[c] + "'";
  }
  // "first", "last", a 1-based number or a header name -> 0-based column.
  static std::size_t resolve_column(const std::string& spec, const std::vector<std::string>& header,
                                    std::size_t columns, const std::string& where) {
    if (spec == "first") return 0;
    if (spec == "last") return columns - 1;
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == spec) return c;
    double number = 0;
    if (readers::parse_number(spec, number) && number == std::floor(number) && number >= 1 &&
        number <= static_cast<double>(columns))
      return static_cast<std::size_t>(number) - 1;
    std::string names;
    for (const auto& h : header) names += (names.empty() ? "" : ", ") + h;
    throw Error(where, "expected first, last, a column number in 1.." + std::to_string(columns) +
                           (header.empty() ? std::string() : " or a header name (" + names + ")") + ", got '" + spec +
                           "'");
  }

  std::filesystem::path path_;
  std::string label_column_, ignore_columns_, header_;
  std::int64_t skip_lines_;
  char delimiter_ = ',';
  std::int64_t num_classes_;
  bool non_finite_to_zero_;
};

}  // namespace

GLIMPSE_PLUGIN(CsvSource)
