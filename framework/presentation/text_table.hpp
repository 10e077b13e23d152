// Aligned plain-text tables for the terminal, and how a metric's value is written in them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace glimpse {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A metric's value as reports show it: percentages for accuracies and rates ("82.5%", spread "1.3"), else 4
// significant digits (spread: 3); NaN as "-".
std::string format_metric(const std::string& metric, double value, bool spread);

}  // namespace glimpse
