// Named results: a final value, a curve over rounds, a matrix. One set of types for what a metric or a learner
// reports about a run (named relative to it, see MetricResults), what the run record carries to the trace and what
// is read back from it (named as in the trace).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glimpse {

struct NamedScalar {
  std::string name;
  double value = 0.0;
  bool operator==(const NamedScalar&) const = default;
};

struct NamedCurve {
  std::string name;
  std::vector<std::int64_t> rounds;
  std::vector<double> values;
  bool operator==(const NamedCurve&) const = default;
};

struct NamedMatrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
  bool operator==(const NamedMatrix&) const = default;
};

}  // namespace glimpse
