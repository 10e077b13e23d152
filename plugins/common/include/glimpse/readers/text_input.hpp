// What every data reader shares: reading a file (whole, or line by line), numbers, the policy for non-finite
// values, and turning the label text of each row into classes 0..K-1 with names.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <glimpse/glimpse.hpp>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace glimpse::readers {

// A data file read through zlib: gunzipped when gzip-compressed, plain files unchanged. Errors name the file.
class GzipInput {
 public:
  explicit GzipInput(const std::filesystem::path& file) : file_(file), in_(gzopen(file.c_str(), "rb"), &gzclose) {
    if (!in_) throw Error(file.string(), "cannot open the data file");
    gzbuffer(in_.get(), 1 << 20);
  }
  // Fills `buffer` from the start with up to its size in bytes; returns how many, 0 at the end. A gzip stream
  // cut short is an error: zlib hands out what it could inflate and then reports the end as a plain one, with
  // Z_BUF_ERROR, which would otherwise load a silently shorter dataset.
  std::size_t read(std::vector<char>& buffer) {
    const int got = gzread(in_.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
    int code = Z_OK;
    const char* message = got <= 0 ? gzerror(in_.get(), &code) : nullptr;
    if (got < 0 || (got == 0 && code == Z_BUF_ERROR)) {
      std::string why = message ? message : "";
      if (why.starts_with(file_.string() + ": ")) why.erase(0, file_.string().size() + 2);  // zlib names the file too
      throw Error(file_.string(), "cannot read the data file (" + why + ")");
    }
    return static_cast<std::size_t>(got);
  }

 private:
  std::filesystem::path file_;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> in_;
};

// The file's bytes (gunzipped), whole: for binary formats; text readers go line by line (for_each_file_line).
inline std::string read_whole_file(const std::filesystem::path& file) {
  GzipInput in(file);
  std::vector<char> chunk(1 << 20);
  std::string bytes;
  for (std::size_t got = in.read(chunk); got > 0; got = in.read(chunk)) bytes.append(chunk.data(), got);
  return bytes;
}

// The whole text must be a number ("+1", "-2.5e3", "nan", "inf" included).
inline bool parse_number(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return false;  // "+-2" (found by fuzzing)
  }
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

inline std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Calls f(line_number, line) for every line of the file, gunzipped when compressed (1-based numbers; the line
// without its "\n" or "\r\n"; no empty last line after a final end of line). The file is read in chunks and only
// a line running across two of them is copied, so a reader holds what it parsed, not the text as well: a 0.7 GB
// VW text file of fashion-mnist read whole cost 0.7 GB beside the dataset.
template <class F>
void for_each_file_line(const std::filesystem::path& file, F&& f) {
  GzipInput in(file);
  std::vector<char> chunk(1 << 20);
  std::string pending;  // the start of a line the last chunk cut
  std::int64_t number = 0;
  const auto emit = [&](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(++number, line);
  };
  for (std::size_t got = in.read(chunk); got > 0; got = in.read(chunk)) {
    const std::string_view text(chunk.data(), got);
    std::size_t pos = 0;
    for (std::size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n', pos)) {
      if (pending.empty()) {
        emit(text.substr(pos, end - pos));
      } else {
        pending.append(text.substr(pos, end - pos));
        emit(pending);
        pending.clear();
      }
      pos = end + 1;
    }
    pending.append(text.substr(pos));
  }
  if (!pending.empty()) emit(pending);
}

// What to do with NaN, Inf and missing values: refuse them (default) or read them as 0.
inline ParamSpec non_finite_param() {
  return ParamSpec::choice("non_finite", "error", {"error", "zero"},
                           "NaN, Inf or missing feature values: refuse the file, or read them as 0");
}

// How a reader of sparse text formats stores what it read.
inline ParamSpec layout_param() {
  return ParamSpec::choice("layout", "auto", {"auto", "dense", "sparse"},
                           "storage: auto is dense when at least half the entries are stored");
}

// The dataset from CSR parts (sorted indices < d), stored as `layout` (layout_param) says.
inline Dataset csr_to_dataset(const std::string& layout, std::int32_t d, std::vector<std::int64_t> offsets,
                              std::vector<std::int32_t> indices, std::vector<Feature> values,
                              std::vector<std::int32_t> labels, std::int32_t num_classes) {
  const auto n = static_cast<std::int64_t>(labels.size());
  const bool dense =
      layout == "dense" || (layout == "auto" && 2 * static_cast<double>(values.size()) >= static_cast<double>(n) * d);
  if (!dense)
    return Dataset::sparse(d, std::move(offsets), std::move(indices), std::move(values), std::move(labels),
                           num_classes);
  std::vector<Feature> matrix(static_cast<std::size_t>(n * d), 0.0f);
  for (std::int64_t i = 0; i < n; ++i)
    for (auto e = offsets[i]; e < offsets[i + 1]; ++e) matrix[static_cast<std::size_t>(i * d + indices[e])] = values[e];
  return Dataset::dense(n, d, std::move(matrix), std::move(labels), num_classes);
}

// Rows' label texts and the lines they came from, for class assignment after the whole file is read.
struct RawLabels {
  std::vector<std::string> texts;
  std::vector<std::int64_t> lines;
  void add(std::string_view text, std::int64_t line) {
    texts.emplace_back(text);
    lines.push_back(line);
  }
};

struct Classes {
  std::vector<std::int32_t> labels;  // 0-based, one per row
  std::vector<std::string> names;    // K names
  std::string note;                  // how labels became classes, when not the identity on 1..K (for Dataset::notes)
};

// "a=1, b=2, c=3", or its first and last entries when there are many.
inline std::string class_mapping_text(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names.size() > 12 && i == 6) {
      text += ", ...";
      i = names.size() - 3;
    }
    text += (text.empty() ? "" : ", ") + names[i] + "=" + std::to_string(i + 1);
  }
  return text;
}

// num_classes == 0: the distinct labels, sorted (numerically when all are numbers, else as text), become
// classes 1..K, and Classes::note says how unless they were the integers 1..K already; a numeric label that is
// not an integer is refused at its line. num_classes == K > 0: labels must be the integers 1..K and keep their
// numbers; a class with no rows is noted.
inline Classes assign_classes(const RawLabels& raw, std::int64_t num_classes, const std::string& file) {
  Classes result;
  result.labels.resize(raw.texts.size());
  const auto refuse = [&](std::size_t i, const std::string& what) {
    throw Error(file + ":" + std::to_string(raw.lines[i]), "label " + raw.texts[i] + " " + what);
  };
  if (num_classes > 0) {
    std::vector<std::int64_t> rows(static_cast<std::size_t>(num_classes));
    for (std::size_t i = 0; i < raw.texts.size(); ++i) {
      double y = 0;
      if (!parse_number(raw.texts[i], y) || !std::isfinite(y)) refuse(i, "is not a number (num_classes wants 1..K)");
      if (y != std::floor(y)) refuse(i, "is not an integer (num_classes wants the integers 1.." +
                                            std::to_string(num_classes) + ")");
      if (y < 1 || y > static_cast<double>(num_classes))
        refuse(i, "is outside 1.." + std::to_string(num_classes) + " (num_classes)");
      result.labels[i] = static_cast<std::int32_t>(y) - 1;
      ++rows[static_cast<std::size_t>(result.labels[i])];
    }
    for (std::int64_t k = 1; k <= num_classes; ++k) result.names.push_back(std::to_string(k));
    std::string empty;
    for (std::int64_t k = 1; k <= num_classes; ++k)
      if (rows[static_cast<std::size_t>(k - 1)] == 0) empty += (empty.empty() ? "" : ", ") + std::to_string(k);
    if (!empty.empty()) result.note = "class(es) " + empty + " of 1.." + std::to_string(num_classes) + " have no rows";
    return result;
  }
  // Numeric labels are ordered by value, with the text read exactly as the check read it (std::stod would
  // differ: it throws on what parse_number refuses or underflows).
  std::vector<double> numbers(raw.texts.size());
  bool numeric = true;
  for (std::size_t i = 0; numeric && i < raw.texts.size(); ++i)
    numeric = parse_number(raw.texts[i], numbers[i]) && std::isfinite(numbers[i]);
  if (numeric) {
    for (std::size_t i = 0; i < numbers.size(); ++i)
      if (numbers[i] != std::floor(numbers[i]))
        refuse(i, "is not an integer: numeric labels name classes (0-based, -1/+1 and any integers are mapped)");
    std::map<double, std::int32_t> classes;
    for (const double v : numbers) classes.emplace(v, 0);
    std::int32_t k = 0;
    bool identity = true;
    for (auto& [value, index] : classes) {
      index = k++;
      identity = identity && value == k;
      result.names.push_back(format_number(value));
    }
    for (std::size_t i = 0; i < raw.texts.size(); ++i) result.labels[i] = classes[numbers[i]];
    if (!identity)
      result.note = "labels mapped to classes 1.." + std::to_string(k) + " in sorted order: " +
                    class_mapping_text(result.names);
  } else {
    std::map<std::string, std::int32_t> classes;
    for (const auto& t : raw.texts) classes.emplace(t, 0);
    std::int32_t k = 0;
    for (auto& [name, index] : classes) {
      index = k++;
      result.names.push_back(name);
    }
    for (std::size_t i = 0; i < raw.texts.size(); ++i) result.labels[i] = classes[raw.texts[i]];
    result.note = "text labels mapped to classes 1.." + std::to_string(k) + " in sorted order: " +
                  class_mapping_text(result.names);
  }
  return result;
}

// Gives the dataset the classes' names and the note of how they were assigned.
inline void take_class_names(Dataset& data, Classes& classes) {
  data.class_names = std::move(classes.names);
  if (!classes.note.empty()) data.notes.push_back(std::move(classes.note));
}

}  // namespace glimpse::readers
