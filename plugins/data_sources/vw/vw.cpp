// Vowpal Wabbit's text format with multiclass labels: "label [importance] ['tag]|ns[:w] f[:v] f2 ...|ns2 ...".
// Namespaces are flattened: feature "f" of namespace "ns" becomes the column named "ns^f" (columns numbered in
// order of first appearance); values default to 1 and are multiplied by the namespace weight; repeated
// features in a row are summed.
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/text_input.hpp>
#include <unordered_map>

namespace {

using glimpse::Error;
namespace readers = glimpse::readers;

class VwSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "vw",
            .kind = glimpse::PluginKind::data_source,
            .summary = "reads Vowpal Wabbit text files with multiclass labels (namespaces flattened)",
            .params = {glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)").mandatory(),
                       glimpse::ParamSpec::integer("num_classes", "0",
                                                   "0: the sorted distinct labels become classes 1..K; K > 0: labels "
                                                   "must be the integers 1..K (VW's --oaa K convention)")
                           .at_least(0),
                       readers::layout_param(), readers::non_finite_param()}};
  }
  explicit VwSource(const glimpse::ParamValues& params)
      : path_(params.path("path")),
        num_classes_(params.integer("num_classes")),
        layout_(params.text("layout")),
        non_finite_to_zero_(params.text("non_finite") == "zero") {}

  glimpse::Dataset load() override {
    const auto& file = path_;
    const std::string name = file.string();
    std::unordered_map<std::string, std::int32_t> columns;
    readers::RawLabels raw_labels;
    std::vector<std::int64_t> offsets{0};
    std::vector<std::int32_t> indices;
    std::vector<glimpse::Feature> values;
    std::vector<std::pair<std::int32_t, double>> row;
    readers::for_each_file_line(file, [&](std::int64_t line_number, std::string_view line) {
      if (readers::trim(line).empty()) return;
      const auto where = [&] { return name + ":" + std::to_string(line_number); };
      const auto bar = line.find('|');
      if (bar == std::string_view::npos) throw Error(where(), "expected '|' before the features");
      // Header: label, optional importance weight, optional tag.
      std::string_view header = readers::trim(line.substr(0, bar));
      const std::string_view label = header.substr(0, header.find_first_of(" \t"));
      if (label.empty() || label.front() == '\'') throw Error(where(), "expected a label before '|'");
      if (label.find(':') != std::string_view::npos)
        throw Error(where(),
                    "label '" + std::string(label) + "' is cost-sensitive (label:cost); expected a class number");
      double number = 0;
      if (!readers::parse_number(label, number) || number != std::floor(number))
        throw Error(where(), "expected an integer class label, got '" + std::string(label) + "'");
      row.clear();
      std::size_t pos = bar;
      while (pos < line.size()) {
        const std::size_t next = line.find('|', pos + 1);
        const std::string_view segment =
            line.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
        pos = next == std::string_view::npos ? line.size() : next;
        std::string space = " ";
        double weight = 1.0;
        std::size_t p = 0;
        if (!segment.empty() && segment.front() != ' ' && segment.front() != '\t') {
          const std::size_t end = std::min(segment.find_first_of(" \t"), segment.size());
          std::string_view ns = segment.substr(0, end);
          if (const auto colon = ns.find(':'); colon != std::string_view::npos) {
            if (!readers::parse_number(ns.substr(colon + 1), weight))
              throw Error(where(), "namespace '" + std::string(ns) + "': expected a number after ':'");
            ns = ns.substr(0, colon);
          }
          space = std::string(ns);
          p = end;
        }
        while (p < segment.size()) {
          while (p < segment.size() && (segment[p] == ' ' || segment[p] == '\t')) ++p;
          const std::size_t start = p;
          while (p < segment.size() && segment[p] != ' ' && segment[p] != '\t') ++p;
          if (p == start) break;
          std::string_view feature = segment.substr(start, p - start);
          double value = 1.0;
          if (const auto colon = feature.rfind(':'); colon != std::string_view::npos) {
            if (!readers::parse_number(feature.substr(colon + 1), value))
              throw Error(where(), "feature '" + std::string(feature) + "': expected a number after ':'");
            feature = feature.substr(0, colon);
          }
          if (!std::isfinite(value)) {
            if (!non_finite_to_zero_)
              throw Error(where(), "feature '" + std::string(feature) +
                                       "' is not finite (the source's non_finite parameter can read it as 0)");
            value = 0;
          }
          const std::string key = space + "^" + std::string(feature);
          const auto [it, added] = columns.emplace(key, static_cast<std::int32_t>(columns.size()));
          row.emplace_back(it->second, value * weight);
        }
      }
      std::sort(row.begin(), row.end());
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0 && row[i].first == row[i - 1].first) {
          values.back() = static_cast<glimpse::Feature>(values.back() + row[i].second);
          continue;
        }
        indices.push_back(row[i].first);
        values.push_back(static_cast<glimpse::Feature>(row[i].second));
      }
      offsets.push_back(static_cast<std::int64_t>(values.size()));
      raw_labels.add(label, line_number);
    });
    if (raw_labels.texts.empty()) throw Error(name, "no data rows");
    if (columns.empty()) throw Error(name, "no feature appears in the file");
    auto classes = readers::assign_classes(raw_labels, num_classes_, name);
    auto data = readers::csr_to_dataset(layout_, static_cast<std::int32_t>(columns.size()), std::move(offsets),
                                        std::move(indices), std::move(values), std::move(classes.labels),
                                        static_cast<std::int32_t>(classes.names.size()));
    readers::take_class_names(data, classes);
    return data;
  }

 private:
  std::filesystem::path path_;
  std::int64_t num_classes_;
  std::string layout_;
  bool non_finite_to_zero_;
};

}  // namespace

GLIMPSE_PLUGIN(VwSource)
