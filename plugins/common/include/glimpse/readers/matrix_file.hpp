// Small numeric matrices given as text files (label-noise and co-occurrence models): one row a line, entries
// separated by spaces, tabs or commas, '#' starting a comment, blank lines ignored.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <glimpse/glimpse.hpp>
#include <string>
#include <vector>

#include "glimpse/readers/text_input.hpp"

namespace glimpse::readers {

struct MatrixFile {
  std::filesystem::path file;
  std::int32_t rows = 0, cols = 0;
  std::vector<double> values;           // row-major
  std::vector<std::int64_t> row_lines;  // the line each row came from, for messages
  double at(std::int32_t r, std::int32_t c) const {
    return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
};

// Reads a matrix whose entries all lie in [lowest, highest] (`expected` words that range for messages); every
// row must have the same length. Errors name the file, the line and what was expected.
inline MatrixFile read_matrix(const std::filesystem::path& file, double lowest, double highest,
                              const std::string& expected) {
  MatrixFile m;
  m.file = file;
  for_each_file_line(file, [&](std::int64_t line_number, std::string_view line) {
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::int32_t count = 0;
    std::size_t pos = 0;
    while (pos < line.size()) {
      const auto is_separator = [](char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; };
      while (pos < line.size() && is_separator(line[pos])) ++pos;
      if (pos == line.size()) break;
      std::size_t end = pos;
      while (end < line.size() && !is_separator(line[end])) ++end;
      const std::string_view token = line.substr(pos, end - pos);
      double v = 0.0;
      const std::string where = file.string() + ":" + std::to_string(line_number);
      if (!parse_number(token, v) || !std::isfinite(v))
        throw Error(where, "expected a number, got '" + std::string(token) + "'");
      if (v < lowest || v > highest)
        throw Error(where,
                    "entry " + std::to_string(count + 1) + " is " + std::string(token) + "; expected " + expected);
      m.values.push_back(v);
      ++count;
      pos = end;
    }
    if (count == 0) return;
    if (m.rows > 0 && count != m.cols)
      throw Error(file.string() + ":" + std::to_string(line_number),
                  "row has " + std::to_string(count) + " entries; the first row has " + std::to_string(m.cols));
    m.cols = count;
    ++m.rows;
    m.row_lines.push_back(line_number);
  });
  if (m.rows == 0) throw Error(file.string(), "no matrix rows");
  return m;
}

// Entries in [0, 1] (co-occurrence and noise models).
inline MatrixFile read_probability_matrix(const std::filesystem::path& file) {
  return read_matrix(file, 0.0, 1.0, "a probability in [0, 1]");
}

// Refuses a matrix that is not K x K (its rows and columns are the classes 1..K in order).
inline void require_square(const MatrixFile& m, std::int32_t K) {
  if (m.rows != K || m.cols != K)
    throw Error(m.file.string(), "is a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                                     " matrix; expected K x K = " + std::to_string(K) + " x " + std::to_string(K) +
                                     " (rows and columns are the classes in order)");
}

}  // namespace glimpse::readers
