// LIBSVM / SVMlight text format: "label index:value index:value ... [# comment]", indices 1-based and
// increasing. Labels are numbers; by default the distinct labels, sorted, become classes 1..K.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <glimpse/glimpse.hpp>
#include <map>
#include <sstream>

namespace {

class LibsvmSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "libsvm",
        .kind = glimpse::PluginKind::data_source,
        .summary = "reads a LIBSVM/SVMlight text file (sparse rows; labels mapped to classes 1..K)",
        .params = {
            glimpse::ParamSpec::text("path", "", "the file, relative to the protocol's folder").mandatory(),
            glimpse::ParamSpec::integer("num_classes", "0",
                                        "0: the sorted distinct labels become classes 1..K; K > 0: labels must be the "
                                        "integers 1..K and are used as they are")
                .at_least(0),
            glimpse::ParamSpec::integer("num_features", "0", "d; 0: the largest index in the file").at_least(0),
            glimpse::ParamSpec::choice("layout", "auto", {"auto", "dense", "sparse"},
                                       "storage: auto is dense when at least half the entries are stored")}};
  }
  explicit LibsvmSource(const glimpse::ParamValues& params)
      : path_(params.text("path")),
        num_classes_(params.integer("num_classes")),
        num_features_(params.integer("num_features")),
        layout_(params.text("layout")) {}

  glimpse::Dataset load(const glimpse::LoadContext& context) override {
    const auto file = context.resolve(path_);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw glimpse::Error(file.string(), "cannot open the data file");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return parse(buffer.str(), file.string());
  }

  glimpse::Dataset parse(const std::string& text, const std::string& name) const {
    std::vector<double> raw_labels;
    std::vector<std::int64_t> offsets{0};
    std::vector<std::int32_t> indices;
    std::vector<glimpse::Feature> values;
    std::int64_t max_index = 0;
    std::int64_t line_number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
      ++line_number;
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + pos, end - pos);
      pos = end + 1;
      if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const auto where = [&] { return name + ":" + std::to_string(line_number); };
      std::size_t p = 0;
      const auto skip_blanks = [&] {
        while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      };
      const auto token = [&] {
        skip_blanks();
        const std::size_t start = p;
        while (p < line.size() && line[p] != ' ' && line[p] != '\t') ++p;
        return line.substr(start, p - start);
      };
      const std::string_view label_text = token();
      if (label_text.empty()) continue;  // blank or comment-only line
      if (label_text.find(',') != std::string_view::npos)
        throw glimpse::Error(where(), "multi-label lines ('" + std::string(label_text) + "') are not supported");
      double label = 0;
      if (!parse_number(label_text, label) || !std::isfinite(label))
        throw glimpse::Error(where(), "expected a numeric label, got '" + std::string(label_text) + "'");
      std::int64_t previous = 0;
      for (std::string_view item = token(); !item.empty(); item = token()) {
        const auto colon = item.find(':');
        if (colon == std::string_view::npos)
          throw glimpse::Error(where(), "expected 'index:value', got '" + std::string(item) + "'");
        std::int64_t index = 0;
        const auto index_text = item.substr(0, colon);
        const auto [index_end, index_error] =
            std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
        if (index_error != std::errc() || index_end != index_text.data() + index_text.size() || index < 1)
          throw glimpse::Error(where(), "expected a feature index >= 1, got '" + std::string(index_text) + "'");
        if (index <= previous)
          throw glimpse::Error(where(), "feature indices must increase, got " + std::to_string(index) + " after " +
                                            std::to_string(previous));
        if (index > std::numeric_limits<std::int32_t>::max())
          throw glimpse::Error(where(), "feature index " + std::to_string(index) + " is too large");
        if (num_features_ > 0 && index > num_features_)
          throw glimpse::Error(where(), "feature index " + std::to_string(index) + " outside 1.." +
                                            std::to_string(num_features_) + " (num_features)");
        double value = 0;
        const auto value_text = item.substr(colon + 1);
        if (!parse_number(value_text, value))
          throw glimpse::Error(where(), "expected a number after '" + std::string(index_text) + ":', got '" +
                                            std::string(value_text) + "'");
        if (!std::isfinite(value))
          throw glimpse::Error(
              where(), "feature " + std::to_string(index) + " is not finite ('" + std::string(value_text) + "')");
        previous = index;
        max_index = std::max(max_index, index);
        indices.push_back(static_cast<std::int32_t>(index - 1));
        values.push_back(static_cast<glimpse::Feature>(value));
      }
      raw_labels.push_back(label);
      offsets.push_back(static_cast<std::int64_t>(values.size()));
    }
    if (raw_labels.empty()) throw glimpse::Error(name, "no data rows");

    std::vector<std::int32_t> labels(raw_labels.size());
    std::vector<std::string> class_names;
    if (num_classes_ > 0) {
      for (std::size_t i = 0; i < raw_labels.size(); ++i) {
        const double y = raw_labels[i];
        if (y != std::floor(y) || y < 1 || y > static_cast<double>(num_classes_))
          throw glimpse::Error(name + ":" + std::to_string(line_of_row(text, i)),
                               "label " + format(y) + " outside 1.." + std::to_string(num_classes_) + " (num_classes)");
        labels[i] = static_cast<std::int32_t>(y) - 1;
      }
      for (std::int64_t k = 1; k <= num_classes_; ++k) class_names.push_back(std::to_string(k));
    } else {
      std::map<double, std::int32_t> classes;
      for (double y : raw_labels) classes.emplace(y, 0);
      std::int32_t k = 0;
      for (auto& [y, index] : classes) {
        index = k++;
        class_names.push_back(format(y));
      }
      for (std::size_t i = 0; i < raw_labels.size(); ++i) labels[i] = classes[raw_labels[i]];
    }
    const auto k = static_cast<std::int32_t>(class_names.size());
    const auto d = static_cast<std::int32_t>(num_features_ > 0 ? num_features_ : max_index);
    if (d == 0) throw glimpse::Error(name, "no feature appears in the file (set num_features)");
    const auto n = static_cast<std::int64_t>(labels.size());
    const bool dense = layout_ == "dense" ||
                       (layout_ == "auto" && 2 * static_cast<double>(values.size()) >= static_cast<double>(n) * d);
    glimpse::Dataset data;
    if (dense) {
      std::vector<glimpse::Feature> matrix(static_cast<std::size_t>(n * d), 0.0f);
      for (std::int64_t i = 0; i < n; ++i)
        for (auto e = offsets[i]; e < offsets[i + 1]; ++e)
          matrix[static_cast<std::size_t>(i * d + indices[e])] = values[e];
      data = glimpse::Dataset::dense(n, d, std::move(matrix), std::move(labels), k);
    } else {
      data =
          glimpse::Dataset::sparse(d, std::move(offsets), std::move(indices), std::move(values), std::move(labels), k);
    }
    data.class_names = std::move(class_names);
    return data;
  }

 private:
  static bool parse_number(std::string_view text, double& out) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc() && end == text.data() + text.size() && !text.empty();
  }
  static std::string format(double y) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", y);
    return buffer;
  }
  // Line number of the i-th data row (for label errors found after parsing).
  static std::int64_t line_of_row(const std::string& text, std::size_t row) {
    std::int64_t line = 0;
    std::size_t seen = 0, pos = 0;
    while (pos <= text.size()) {
      ++line;
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      std::string_view l(text.data() + pos, end - pos);
      if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
      if (l.find_first_not_of(" \t\r") != std::string_view::npos && seen++ == row) return line;
      pos = end + 1;
    }
    return line;
  }

  std::string path_;
  std::int64_t num_classes_, num_features_;
  std::string layout_;
};

}  // namespace

GLIMPSE_PLUGIN(LibsvmSource)
