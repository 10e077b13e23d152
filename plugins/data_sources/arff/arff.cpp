// Weka's ARFF: @relation, @attribute NAME numeric|real|integer|{v1,v2,...}|string, @data; dense or sparse rows
// ({index value, ...}, 0-based, omitted values 0); '?' is missing; '%' starts a comment. String attributes (text)
// become word counts over a vocabulary chosen from the whole file (text: word_counts), and the rows then sparse.
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/text_input.hpp>

#include <unordered_map>

namespace {

using glimpse::Error;
namespace readers = glimpse::readers;

struct Attribute {
  std::string name;
  bool nominal = false;
  bool text = false;                // a string attribute
  std::vector<std::string> values;  // nominal only, in declared order
};

// The words of a text: maximal runs of two or more letters, digits or underscores, lowercased.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const auto c = i < text.size() ? static_cast<unsigned char>(text[i]) : ' ';
    if (std::isalnum(c) || c == '_') {
      word += static_cast<char>(std::tolower(c));
    } else {
      if (word.size() >= 2) words.push_back(word);
      word.clear();
    }
  }
  return words;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads one token at `p`: a quoted string ('..' or ".."), or characters up to a delimiter.
std::string token(std::string_view line, std::size_t& p, std::string_view delimiters) {
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  std::string out;
  if (p < line.size() && (line[p] == '\'' || line[p] == '"')) {
    const char quote = line[p++];
    while (p < line.size() && line[p] != quote) {
      if (line[p] == '\\' && p + 1 < line.size()) {  // Weka's escapes: \n \r \t, else the character itself
        const char escaped = line[++p];
        out += escaped == 'n' ? '\n' : escaped == 'r' ? '\r' : escaped == 't' ? '\t' : escaped;
        ++p;
        continue;
      }
      out += line[p++];
    }
    ++p;  // closing quote
    return out;
  }
  while (p < line.size() && delimiters.find(line[p]) == std::string_view::npos) out += line[p++];
  return std::string(readers::trim(out));
}

class ArffSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "arff",
            .kind = glimpse::PluginKind::data_source,
            .summary = "reads Weka ARFF (numeric, nominal and string attributes, dense or sparse rows)",
            .params = {
                glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)")
                    .mandatory()
                    .into(&ArffSource::path_),
                glimpse::ParamSpec::text("class_attribute", "last", "the class attribute: last, first or its name")
                    .into(&ArffSource::class_attribute_),
                glimpse::ParamSpec::choice("nominal", "one_hot", {"one_hot", "index"},
                                           "how other nominal attributes become features: one 0/1 feature per "
                                           "value, or the value's 0-based index")
                    .into(&ArffSource::nominal_),
                glimpse::ParamSpec::boolean("keep_empty_classes", false, "keep declared class values that no row has")
                    .into(&ArffSource::keep_empty_classes_),
                glimpse::ParamSpec::choice("text", "error", {"error", "word_counts"},
                                           "string attributes: refuse the file, or one feature per word of the "
                                           "vocabulary counting its occurrences in the row's strings (rows sparse)")
                    .into(&ArffSource::text_),
                glimpse::ParamSpec::integer("vocabulary", "1000",
                                            "text: word_counts: the words kept, those in the most rows (ties: the "
                                            "word met first); words are runs of 2+ letters, digits or _, lowercased")
                    .at_least(1)
                    .into(&ArffSource::vocabulary_),
                readers::non_finite_param(&ArffSource::non_finite_)}};
  }
  glimpse::Dataset load() override {
    const auto& file = path_;
    const std::string name = file.string();
    std::vector<Attribute> attributes;
    bool in_data = false;
    std::size_t label = 0;
    std::vector<std::size_t> offset;  // first feature column of each attribute
    std::int64_t d = 0;
    std::vector<glimpse::Feature> values, row;
    std::string row_text;                         // the row's string attributes, space-separated
    std::vector<std::vector<std::string>> texts;  // text: word_counts: each row's words
    std::vector<std::int32_t> labels;  // index into the class attribute's declared values
    std::vector<std::int64_t> label_lines;
    std::int64_t dropped = 0, first_dropped_line = 0;  // non_finite: drop
    readers::for_each_file_line(file, [&](std::int64_t line_number, std::string_view raw) {
      const auto where = [&] { return name + ":" + std::to_string(line_number); };
      const std::string_view line = readers::trim(raw);
      if (line.empty() || line.front() == '%') return;
      if (!in_data) {
        std::size_t p = 0;
        const std::string keyword = lower(token(line, p, " \t"));
        if (keyword == "@relation") return;
        if (keyword == "@attribute") {
          Attribute a;
          a.name = token(line, p, " \t{");
          while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
          if (p < line.size() && line[p] == '{') {
            a.nominal = true;
            ++p;
            while (p < line.size() && line[p] != '}') {
              a.values.push_back(token(line, p, ",}"));
              if (p < line.size() && line[p] == ',') ++p;
            }
            if (p >= line.size()) throw Error(where(), "expected '}' closing the values of '" + a.name + "'");
            // Found by fuzzing: sparse rows read an omitted nominal as its first value, which `{}` lacks.
            if (a.values.empty()) throw Error(where(), "attribute '" + a.name + "': expected at least one value in {}");
          } else {
            const std::string type = lower(token(line, p, " \t"));
            a.text = type == "string";
            if (a.text && text_ == Text::error)
              throw Error(where(), "attribute '" + a.name +
                                       "': a string attribute (the source's text parameter can read it as word "
                                       "counts: text: word_counts)");
            if (!a.text && type != "numeric" && type != "real" && type != "integer")
              throw Error(where(), "attribute '" + a.name + "': expected numeric, real, integer, string or {values}, "
                                       "got '" + type + "' (date attributes are not supported)");
          }
          attributes.push_back(std::move(a));
          return;
        }
        if (keyword == "@data") {
          if (attributes.size() < 2) throw Error(where(), "expected at least 2 attributes before @data");
          label = resolve_class(attributes, where());
          if (!attributes[label].nominal)
            throw Error(where(), "the class attribute '" + attributes[label].name + "' must be nominal ({...})");
          for (std::size_t i = 0; i < attributes.size(); ++i) {
            offset.push_back(static_cast<std::size_t>(d));
            if (i == label || attributes[i].text) continue;
            d += attributes[i].nominal && nominal_ == Nominal::one_hot
                     ? static_cast<std::int64_t>(attributes[i].values.size())
                     : 1;
          }
          in_data = true;
          return;
        }
        throw Error(where(), "expected @relation, @attribute or @data, got '" + keyword + "'");
      }
      row.assign(static_cast<std::size_t>(d), 0.0f);
      row_text.clear();
      std::int32_t y = -1;
      bool drop = false;
      const auto set = [&](std::size_t a, const std::string& value) {
        if (a >= attributes.size())
          throw Error(where(),
                      "attribute index " + std::to_string(a) + " outside 0.." + std::to_string(attributes.size() - 1));
        const Attribute& attribute = attributes[a];
        if (attribute.text) {  // '?' (missing) adds no words
          if (value != "?") (row_text += ' ') += value;
          return;
        }
        if (value == "?") {
          if (a == label) throw Error(where(), "the class is missing ('?')");
          double stored = 0;
          if (!readers::accept_unusable(non_finite_, stored, drop))
            throw Error(where(), "attribute '" + attribute.name +
                                     "': missing value ('?'; the source's non_finite parameter can read it as 0)");
          // (0 leaves a one-hot attribute's columns all 0 and an index the first value; NaN marks them all missing)
          const std::size_t columns = attribute.nominal && nominal_ == Nominal::one_hot ? attribute.values.size() : 1;
          if (std::isnan(stored)) std::fill_n(row.begin() + offset[a], columns, static_cast<glimpse::Feature>(stored));
          return;
        }
        if (attribute.nominal) {
          const auto it = std::find(attribute.values.begin(), attribute.values.end(), value);
          if (it == attribute.values.end())
            throw Error(where(),
                        "attribute '" + attribute.name + "': '" + value + "' is not one of its declared values");
          const auto index = static_cast<std::size_t>(it - attribute.values.begin());
          if (a == label)
            y = static_cast<std::int32_t>(index);
          else if (nominal_ == Nominal::one_hot)
            row[offset[a] + index] = 1.0f;
          else
            row[offset[a]] = static_cast<glimpse::Feature>(index);
          return;
        }
        double v = 0;
        if (!readers::parse_number(value, v))
          throw Error(where(), "attribute '" + attribute.name + "': expected a number, got '" + value + "'");
        if (!readers::representable(v) && !readers::accept_unusable(non_finite_, v, drop))
          throw Error(where(), "attribute '" + attribute.name + "': value " + readers::unrepresentable_reason(v) +
                                   " ('" + value + "'; the source's non_finite parameter can read it as 0)");
        row[offset[a]] = static_cast<glimpse::Feature>(v);
      };
      std::size_t p = 0;
      if (line.front() == '{') {  // sparse: omitted values are 0 (nominal: the first declared value)
        for (std::size_t a = 0; a < attributes.size(); ++a)
          if (attributes[a].nominal) set(a, attributes[a].values.front());
        p = 1;
        while (p < line.size() && line[p] != '}') {
          const std::string index_text = token(line, p, " \t");
          double index = 0;
          if (!readers::parse_number(index_text, index) || index < 0 || index != std::floor(index))
            throw Error(where(), "expected 'index value' pairs in a sparse row, got index '" + index_text + "'");
          if (index >= static_cast<double>(attributes.size()))  // before the cast (found by fuzzing: 5e44)
            throw Error(where(),
                        "attribute index " + index_text + " outside 0.." + std::to_string(attributes.size() - 1));
          set(static_cast<std::size_t>(index), token(line, p, ",}"));
          if (p < line.size() && line[p] == ',') ++p;
        }
      } else {
        std::size_t a = 0;
        while (p <= line.size()) {
          if (a >= attributes.size())
            throw Error(where(), "expected " + std::to_string(attributes.size()) + " values, got more");
          set(a++, token(line, p, ","));
          if (p >= line.size()) break;
          ++p;  // the comma
        }
        if (a != attributes.size())
          throw Error(where(), "expected " + std::to_string(attributes.size()) + " values, got " + std::to_string(a));
      }
      if (drop) {
        if (dropped++ == 0) first_dropped_line = line_number;
        return;
      }
      values.insert(values.end(), row.begin(), row.end());
      if (text_ == Text::word_counts) texts.push_back(words_of(row_text));
      labels.push_back(y);
      label_lines.push_back(line_number);
    });
    if (!in_data) throw Error(name, "no @data section");
    if (labels.empty())
      throw Error(name, dropped > 0 ? "no data rows: every row had a missing or non-finite value (non_finite: drop)"
                                    : "no data rows");

    // Classes: the class attribute's declared values in declared order (without unused ones by default).
    const auto& declared = attributes[label].values;
    std::vector<std::int32_t> class_of(declared.size(), -1);
    std::vector<std::string> names;
    for (std::size_t v = 0; v < declared.size(); ++v) {
      const bool used =
          keep_empty_classes_ || std::find(labels.begin(), labels.end(), static_cast<std::int32_t>(v)) != labels.end();
      if (used) {
        class_of[v] = static_cast<std::int32_t>(names.size());
        names.push_back(declared[v]);
      }
    }
    for (auto& y : labels) y = class_of[static_cast<std::size_t>(y)];
    const auto n = static_cast<std::int64_t>(labels.size());
    const bool has_text = std::any_of(attributes.begin(), attributes.end(), [](const auto& a) { return a.text; });
    auto data = has_text ? with_word_counts(d, values, texts, std::move(labels), static_cast<std::int32_t>(names.size()))
                         : glimpse::Dataset::dense(n, static_cast<std::int32_t>(d), std::move(values),
                                                   std::move(labels), static_cast<std::int32_t>(names.size()));
    data.class_names = std::move(names);
    if (dropped > 0) data.notes.push_back(readers::dropped_rows_note(dropped, n + dropped, name, first_dropped_line));
    return data;
  }

 private:
  // Sparse rows: the d other features' nonzero values, then one count per vocabulary word (the `vocabulary_` words
  // in the most rows, most first; ties: the word met first).
  glimpse::Dataset with_word_counts(std::int64_t d, const std::vector<glimpse::Feature>& dense,
                                    const std::vector<std::vector<std::string>>& texts, std::vector<std::int32_t> labels,
                                    std::int32_t num_classes) const {
    struct Seen {
      std::int64_t rows = 0, first = 0, last_row = -1;
    };
    std::unordered_map<std::string, Seen> seen;
    std::int64_t order = 0;
    for (std::size_t i = 0; i < texts.size(); ++i)
      for (const auto& word : texts[i]) {
        auto [it, added] = seen.try_emplace(word, Seen{0, order, -1});
        if (added) ++order;
        if (it->second.last_row != static_cast<std::int64_t>(i)) {
          it->second.last_row = static_cast<std::int64_t>(i);
          ++it->second.rows;
        }
      }
    std::vector<std::pair<const std::string*, Seen>> ranked;
    for (const auto& [word, s] : seen) ranked.emplace_back(&word, s);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.second.rows != b.second.rows ? a.second.rows > b.second.rows : a.second.first < b.second.first;
    });
    ranked.resize(std::min(ranked.size(), static_cast<std::size_t>(vocabulary_)));
    std::unordered_map<std::string, std::int32_t> column;
    for (std::size_t w = 0; w < ranked.size(); ++w)
      column.emplace(*ranked[w].first, static_cast<std::int32_t>(d + static_cast<std::int64_t>(w)));
    std::vector<std::int64_t> offsets{0};
    std::vector<std::int32_t> indices;
    std::vector<glimpse::Feature> values;
    std::vector<std::pair<std::int32_t, glimpse::Feature>> counts;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      for (std::int64_t j = 0; j < d; ++j)
        if (const auto v = dense[i * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)]; v != 0) {
          indices.push_back(static_cast<std::int32_t>(j));
          values.push_back(v);
        }
      counts.clear();
      for (const auto& word : texts[i])
        if (const auto it = column.find(word); it != column.end()) counts.emplace_back(it->second, 1.0f);
      std::sort(counts.begin(), counts.end());
      for (const auto& [j, one] : counts) {
        if (!indices.empty() && static_cast<std::int64_t>(indices.size()) > offsets.back() && indices.back() == j)
          values.back() += one;
        else {
          indices.push_back(j);
          values.push_back(one);
        }
      }
      offsets.push_back(static_cast<std::int64_t>(indices.size()));
    }
    auto data = glimpse::Dataset::sparse(static_cast<std::int32_t>(d + static_cast<std::int64_t>(ranked.size())),
                                         std::move(offsets), std::move(indices), std::move(values), std::move(labels),
                                         num_classes);
    data.notes.push_back("text: word_counts: " + std::to_string(ranked.size()) + " words kept of " +
                         std::to_string(seen.size()) + " distinct (those in the most rows)");
    return data;
  }

  std::size_t resolve_class(const std::vector<Attribute>& attributes, const std::string& where) const {
    if (class_attribute_ == "last") return attributes.size() - 1;
    if (class_attribute_ == "first") return 0;
    std::string names;
    for (std::size_t i = 0; i < attributes.size(); ++i) {
      if (attributes[i].name == class_attribute_) return i;
      names += (names.empty() ? "" : ", ") + attributes[i].name;
    }
    throw Error(where, "class_attribute: expected last, first or one of " + names + ", got '" + class_attribute_ + "'");
  }

  std::filesystem::path path_;
  std::string class_attribute_;
  enum class Nominal { one_hot, index };  // the choices' order
  Nominal nominal_ = Nominal::one_hot;
  bool keep_empty_classes_ = false;
  enum class Text { error, word_counts };  // the choices' order
  Text text_ = Text::error;
  std::int64_t vocabulary_ = 1000;
  readers::NonFinite non_finite_ = readers::NonFinite::error;
};

}  // namespace

GLIMPSE_PLUGIN(ArffSource)
