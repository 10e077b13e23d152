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
            glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)")
                .mandatory()
                .into(&CsvSource::path_),
            glimpse::ParamSpec::text("label_column", "last",
                                     "the label's column: first, last, a 1-based number, or a header name")
                .into(&CsvSource::label_column_),
            glimpse::ParamSpec::text("ignore_columns", "", "columns to drop, comma-separated numbers or header names")
                .into(&CsvSource::ignore_columns_),
            glimpse::ParamSpec::choice("header", "auto", {"auto", "yes", "no"},
                                       "whether the first line names the columns (auto: when none of its "
                                       "fields is a number)")
                .into(&CsvSource::header_),
            glimpse::ParamSpec::integer("skip_lines", "0", "lines to skip before the header or the data")
                .at_least(0)
                .into(&CsvSource::skip_lines_),
            glimpse::ParamSpec::choice("delimiter", "comma", {"comma", "tab", "semicolon", "space"}, "field separator")
                .into(&CsvSource::delimiter_name_),
            glimpse::ParamSpec::integer("num_classes", "0",
                                        "0: the sorted distinct labels become classes 1..K; K > 0: labels "
                                        "must be the integers 1..K")
                .at_least(0)
                .into(&CsvSource::num_classes_),
            readers::non_finite_param(&CsvSource::non_finite_)}};
  }
  void configure() {
    const std::string& d = delimiter_name_;
    delimiter_ = d == "tab" ? '\t' : d == "semicolon" ? ';' : d == "space" ? ' ' : ',';
  }

  glimpse::Dataset load() override {
    const std::string name = path_.string();
    // The first line read decides the columns (and is the header when it names them); the rest are parsed in
    // parallel pieces.
    const auto first = readers::first_line_where(path_, [&](std::int64_t number, std::string_view line) {
      return number > skip_lines_ && !readers::trim(line).empty();
    });
    if (!first) throw Error(name, "no data rows");
    const auto& [first_number, first_line] = *first;
    const std::string where = name + ":" + std::to_string(first_number);
    const auto fields = split(first_line);
    Layout layout;
    layout.columns = fields.size();
    if (layout.columns < 2) throw Error(where, "expected at least 2 columns (a label and a feature), got 1");
    bool any_number = false;
    for (const auto& f : fields) {
      double v = 0;
      any_number = any_number || readers::parse_number(f, v);
    }
    const bool is_header = header_ == "yes" || (header_ == "auto" && !any_number);
    if (is_header) layout.header = fields;
    layout.label = resolve_column(label_column_, layout.header, layout.columns, where + ": label_column");
    layout.feature_index.assign(layout.columns, 0);
    layout.feature_index[layout.label] = -1;
    if (!ignore_columns_.empty())
      for (const auto& item : split_fields(ignore_columns_, ','))
        layout.feature_index[resolve_column(item, layout.header, layout.columns, where + ": ignore_columns")] = -1;
    std::int32_t d = 0;
    for (auto& index : layout.feature_index)
      if (index >= 0) index = d++;
    if (d == 0) throw Error(where, "no feature column is left");

    auto pieces = readers::parse_lines_in_parallel<readers::CsrRows>(
        path_,
        [&](readers::CsrRows& rows, std::int64_t line_number, std::string_view line) {
          parse_line(layout, rows, line_number, line);
        },
        {.skip_lines = is_header ? first_number : first_number - 1});
    return readers::rows_to_dataset(pieces, "dense", d, num_classes_, name);
  }

 private:
  // The columns as the first line decided them.
  struct Layout {
    std::vector<std::string> header;  // names, when the first line is a header
    std::size_t columns = 0, label = 0;
    std::vector<std::int32_t> feature_index;  // per column: its feature's index; -1: the label or ignored
  };

  std::vector<std::string> split(std::string_view line) const {
    return delimiter_ == ' ' ? split_blanks(line) : split_fields(line, delimiter_);
  }

  // One line into `rows` (called on several threads at once: reads only the source's settings and the layout).
  // Every kept column is stored, so rows_to_dataset makes dense rows of them.
  void parse_line(const Layout& layout, readers::CsrRows& rows, std::int64_t line_number, std::string_view line) const {
    using readers::LineProblem;
    if (readers::trim(line).empty()) return;
    // Lines without quotes are cut in place; quoted ones are unquoted into strings first.
    thread_local std::vector<std::string_view> fields;
    thread_local std::vector<std::string> unquoted;
    if (delimiter_ == ' ' || line.find('"') != std::string_view::npos) {
      unquoted = split(line);
      fields.assign(unquoted.begin(), unquoted.end());
    } else {
      fields.clear();
      for (std::size_t start = 0;;) {
        const std::size_t end = std::min(line.find(delimiter_, start), line.size());
        fields.push_back(readers::trim(line.substr(start, end - start)));
        if (end == line.size()) break;
        start = end + 1;
      }
    }
    if (fields.size() != layout.columns)
      throw LineProblem{"expected " + std::to_string(layout.columns) + " fields, got " + std::to_string(fields.size())};
    bool drop = false;
    for (std::size_t c = 0; c < layout.columns; ++c) {
      if (layout.feature_index[c] < 0) continue;
      double v = 0;
      const bool missing = fields[c].empty() || fields[c] == "?" || fields[c] == "NA";
      if (!missing && !readers::parse_number(fields[c], v))
        throw LineProblem{"column " + column_name(c, layout.header) + ": expected a number, got '" +
                          std::string(fields[c]) + "'"};
      if ((missing || !readers::representable(v)) && !readers::accept_unusable(non_finite_, v, drop))
        throw LineProblem{"column " + column_name(c, layout.header) + ": " +
                          (missing ? "missing value" : "value " + readers::unrepresentable_reason(v)) + " ('" +
                          std::string(fields[c]) + "'; the source's non_finite parameter can read it as 0)"};
      rows.indices.push_back(layout.feature_index[c]);
      rows.values.push_back(static_cast<glimpse::Feature>(v));
    }
    if (fields[layout.label].empty()) throw LineProblem{"the label is missing"};
    if (drop)
      rows.drop_row(line_number);
    else
      rows.end_row(fields[layout.label], line_number);
  }

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
  std::int64_t skip_lines_ = 0;
  std::string delimiter_name_;
  char delimiter_ = ',';
  std::int64_t num_classes_ = 0;
  readers::NonFinite non_finite_ = readers::NonFinite::error;
};

}  // namespace

GLIMPSE_PLUGIN(CsvSource)
