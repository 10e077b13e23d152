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
    return {
        .name = "libsvm",
        .kind = glimpse::PluginKind::data_source,
        .summary = "reads a LIBSVM/SVMlight text file (sparse rows; labels mapped to classes 1..K)",
        .params = {glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)").mandatory(),
                   glimpse::ParamSpec::integer("num_classes", "0",
                                               "0: the sorted distinct labels become classes 1..K; K > 0: labels "
                                               "must be the integers 1..K and are used as they are")
                       .at_least(0),
                   glimpse::ParamSpec::integer("num_features", "0", "d; 0: the largest index in the file").at_least(0),
                   readers::layout_param(),
                   readers::non_finite_param()}};
  }
  explicit LibsvmSource(const glimpse::ParamValues& params)
      : path_(params.path("path")),
        num_classes_(params.integer("num_classes")),
        num_features_(params.integer("num_features")),
        layout_(params.text("layout")),
        non_finite_to_zero_(params.text("non_finite") == "zero") {}

  glimpse::Dataset load() override {
    const auto& file = path_;
    const std::string name = file.string();
    readers::RawLabels raw_labels;
    std::vector<std::int64_t> offsets{0};
    std::vector<std::int32_t> indices;
    std::vector<glimpse::Feature> values;
    std::int64_t max_index = 0;
    readers::for_each_file_line(file, [&](std::int64_t line_number, std::string_view line) {
      if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      const auto where = [&] { return name + ":" + std::to_string(line_number); };
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
        throw Error(where(), "multi-label lines ('" + std::string(label_text) + "') are not supported");
      double label = 0;
      if (!readers::parse_number(label_text, label) || !std::isfinite(label))
        throw Error(where(), "expected a numeric label, got '" + std::string(label_text) + "'");
      std::int64_t previous = 0;
      for (std::string_view item = token(); !item.empty(); item = token()) {
        const auto colon = item.find(':');
        if (colon == std::string_view::npos)
          throw Error(where(), "expected 'index:value', got '" + std::string(item) + "'");
        std::int64_t index = 0;
        const auto index_text = item.substr(0, colon);
        const auto [index_end, index_error] =
            std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
        if (index_error != std::errc() || index_end != index_text.data() + index_text.size() || index < 1)
          throw Error(where(), "expected a feature index >= 1, got '" + std::string(index_text) + "'");
        if (index <= previous)
          throw Error(where(), "feature indices must increase, got " + std::to_string(index) + " after " +
                                   std::to_string(previous));
        if (index > std::numeric_limits<std::int32_t>::max())
          throw Error(where(), "feature index " + std::to_string(index) + " is too large");
        if (num_features_ > 0 && index > num_features_)
          throw Error(where(), "feature index " + std::to_string(index) + " outside 1.." +
                                   std::to_string(num_features_) + " (num_features)");
        double value = 0;
        const auto value_text = item.substr(colon + 1);
        if (!readers::parse_number(value_text, value))
          throw Error(where(), "expected a number after '" + std::string(index_text) + ":', got '" +
                                   std::string(value_text) + "'");
        if (!std::isfinite(value)) {
          if (!non_finite_to_zero_)
            throw Error(where(), "feature " + std::to_string(index) + " is not finite ('" + std::string(value_text) +
                                     "'; the source's non_finite parameter can read it as 0)");
          value = 0;
        }
        previous = index;
        max_index = std::max(max_index, index);
        indices.push_back(static_cast<std::int32_t>(index - 1));
        values.push_back(static_cast<glimpse::Feature>(value));
      }
      raw_labels.add(label_text, line_number);
      offsets.push_back(static_cast<std::int64_t>(values.size()));
    });
    if (raw_labels.texts.empty()) throw Error(name, "no data rows");

    auto classes = readers::assign_classes(raw_labels, num_classes_, name);
    const auto k = static_cast<std::int32_t>(classes.names.size());
    const auto d = static_cast<std::int32_t>(num_features_ > 0 ? num_features_ : max_index);
    if (d == 0) throw Error(name, "no feature appears in the file (set num_features)");
    glimpse::Dataset data = readers::csr_to_dataset(layout_, d, std::move(offsets), std::move(indices),
                                                    std::move(values), std::move(classes.labels), k);
    readers::take_class_names(data, classes);
    return data;
  }

 private:
  std::filesystem::path path_;
  std::int64_t num_classes_, num_features_;
  std::string layout_;
  bool non_finite_to_zero_;
};

}  // namespace

GLIMPSE_PLUGIN(LibsvmSource)
