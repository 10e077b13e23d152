// LIBSVM / SVMlight text format: "label index:value index:value ... [# comment]", indices 1-based and
// increasing. By default the distinct labels, sorted, become classes 1..K.
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/text_input.hpp>
#include <limits>

namespace {

using glimpse::Error;
namespace readers = glimpse::readers;

class LibsvmSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "libsvm",
            .kind = glimpse::PluginKind::data_source,
            .summary = "reads a LIBSVM/SVMlight text file (sparse rows; labels mapped to classes 1..K)",
            .params = {glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)")
                           .mandatory()
                           .into(&LibsvmSource::path_),
                       glimpse::ParamSpec::integer("num_classes", "0",
                                                   "0: the sorted distinct labels become classes 1..K; K > 0: labels "
                                                   "must be the integers 1..K and are used as they are")
                           .at_least(0)
                           .into(&LibsvmSource::num_classes_),
                       glimpse::ParamSpec::integer("num_features", "0", "d; 0: the largest index in the file")
                           .at_least(0)
                           .into(&LibsvmSource::num_features_),
                       readers::layout_param(&LibsvmSource::layout_),
                       readers::non_finite_param(&LibsvmSource::non_finite_)}};
  }

  glimpse::Dataset load() override {
    const std::string name = path_.string();
    auto pieces = readers::parse_lines_in_parallel<readers::CsrRows>(
        path_, [this](readers::CsrRows& rows, std::int64_t line_number, std::string_view line) {
          parse_line(rows, line_number, line);
        });
    if (readers::no_rows(pieces)) throw Error(name, "no data rows");
    std::int32_t max_index = 0;  // rows' indices increase: a row's last is its largest
    for (const auto& piece : pieces)
      for (std::size_t r = 0; r < piece.part.rows(); ++r)
        if (piece.part.offsets[r + 1] > piece.part.offsets[r])
          max_index =
              std::max(max_index, piece.part.indices[static_cast<std::size_t>(piece.part.offsets[r + 1] - 1)] + 1);
    const auto d = static_cast<std::int32_t>(num_features_ > 0 ? num_features_ : max_index);
    if (d == 0) throw Error(name, "no feature appears in the file (set num_features)");
    return readers::rows_to_dataset(pieces, layout_, d, num_classes_, name);
  }

 private:
  // One line into `rows` (called on several threads at once: reads only the source's settings). Lines of the
  // common shape take one pass; any other line (comments, blank lines, errors, values to read as 0) is read again
  // by the checking reader, which says what is wrong.
  void parse_line(readers::CsrRows& rows, std::int64_t line_number, std::string_view line) const {
    const std::size_t row_start = rows.values.size();
    if (parse_plain_line(rows, line_number, line)) return;
    rows.indices.resize(row_start);
    rows.values.resize(row_start);
    parse_checked_line(rows, line_number, line);
  }

  // "label index:value index:value ..." with increasing indices and finite values; false for anything else.
  bool parse_plain_line(readers::CsrRows& rows, std::int64_t line_number, std::string_view line) const {
    const char* at = line.data();
    const char* const end = at + line.size();
    while (at < end && readers::is_field_gap(*at)) ++at;
    const char* const label_start = at;
    while (at < end && !readers::is_field_gap(*at)) ++at;
    const std::string_view label_text(label_start, static_cast<std::size_t>(at - label_start));
    double label = 0;
    if (!readers::parse_number(label_text, label) || !std::isfinite(label)) return false;
    std::int64_t previous = 0;
    while (true) {
      while (at < end && readers::is_field_gap(*at)) ++at;
      if (at == end) break;
      std::int64_t index = 0;
      const char* colon = at;
      for (; colon < end && colon - at < 10 && static_cast<unsigned>(*colon - '0') < 10; ++colon)
        index = 10 * index + (*colon - '0');
      if (colon == at || colon == end || *colon != ':' || index <= previous ||
          index > std::numeric_limits<std::int32_t>::max() || (num_features_ > 0 && index > num_features_))
        return false;
      double value = 0;
      const char* after = readers::parse_number_prefix(colon + 1, end, value);
      if (after == nullptr || (after < end && !readers::is_field_gap(*after)) || !readers::representable(value))
        return false;
      rows.indices.push_back(static_cast<std::int32_t>(index - 1));
      rows.values.push_back(static_cast<glimpse::Feature>(value));
      previous = index;
      at = after;
    }
    rows.end_row(label_text, line_number);
    return true;
  }

  void parse_checked_line(readers::CsrRows& rows, std::int64_t line_number, std::string_view line) const {
    using readers::LineProblem;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::size_t p = 0;
    const auto token = [&] {
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      const std::size_t start = p;
      while (p < line.size() && line[p] != ' ' && line[p] != '\t') ++p;
      return line.substr(start, p - start);
    };
    const std::string_view label_text = token();
    if (label_text.empty()) return;  // blank or comment-only line
    if (label_text.find(',') != std::string_view::npos)
      throw LineProblem{"multi-label lines ('" + std::string(label_text) + "') are not supported"};
    double label = 0;
    if (!readers::parse_number(label_text, label) || !std::isfinite(label))
      throw LineProblem{"expected a numeric label, got '" + std::string(label_text) + "'"};
    std::int64_t previous = 0;
    bool drop = false;
    for (std::string_view item = token(); !item.empty(); item = token()) {
      const auto colon = item.find(':');
      if (colon == std::string_view::npos) throw LineProblem{"expected 'index:value', got '" + std::string(item) + "'"};
      std::int64_t index = 0;
      const auto index_text = item.substr(0, colon);
      const auto [index_end, index_error] =
          std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
      if (index_error != std::errc() || index_end != index_text.data() + index_text.size() || index < 1)
        throw LineProblem{"expected a feature index >= 1, got '" + std::string(index_text) + "'"};
      if (index <= previous)
        throw LineProblem{"feature indices must increase, got " + std::to_string(index) + " after " +
                          std::to_string(previous)};
      if (index > std::numeric_limits<std::int32_t>::max())
        throw LineProblem{"feature index " + std::to_string(index) + " is too large"};
      if (num_features_ > 0 && index > num_features_)
        throw LineProblem{"feature index " + std::to_string(index) + " outside 1.." + std::to_string(num_features_) +
                          " (num_features)"};
      double value = 0;
      const auto value_text = item.substr(colon + 1);
      if (!readers::parse_number(value_text, value))
        throw LineProblem{"expected a number after '" + std::string(index_text) + ":', got '" +
                          std::string(value_text) + "'"};
      if (!readers::representable(value) && !readers::accept_unusable(non_finite_, value, drop))
        throw LineProblem{"feature " + std::to_string(index) + " " + readers::unrepresentable_reason(value) + " ('" +
                          std::string(value_text) + "'; the source's non_finite parameter can read it as 0)"};
      previous = index;
      rows.indices.push_back(static_cast<std::int32_t>(index - 1));
      rows.values.push_back(static_cast<glimpse::Feature>(value));
    }
    if (drop)
      rows.drop_row(line_number);
    else
      rows.end_row(label_text, line_number);
  }

  std::filesystem::path path_;
  std::int64_t num_classes_ = 0, num_features_ = 0;
  std::string layout_;
  readers::NonFinite non_finite_ = readers::NonFinite::error;
};

}  // namespace

GLIMPSE_PLUGIN(LibsvmSource)
