// TextTable and format_metric.
#include "text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace glimpse {

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> widths(header_.size(), 0);
  const auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  const auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      out << row[i];
      if (i + 1 < row.size()) out << std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << '\n';
  };
  line(header_);
  std::size_t total = 0;
  for (auto w : widths) total += w + 2;
  out << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  for (const auto& row : rows_) line(row);
}

std::string format_metric(const std::string& metric, double value, bool spread) {
  if (std::isnan(value)) return "-";  // a metric the runs lack, or the spread of a single run
  char buffer[32];
  const bool fraction = metric.find("accuracy") != std::string::npos || metric.find("rate") != std::string::npos;
  if (fraction)
    std::snprintf(buffer, sizeof buffer, spread ? "%.1f" : "%.1f%%", 100 * value);
  else
    std::snprintf(buffer, sizeof buffer, spread ? "%.3g" : "%.4g", value);
  return buffer;
}

}  // namespace glimpse
