// Where finished runs go. Each finished run is written at once to its own small HDF5 file under
// "<output>.parts/" (written under a temporary name, then renamed, so a part is whole or absent); the
// output file is assembled from the parts when the sweep ends or is interrupted. A killed sweep thus keeps
// every finished run readable, and rerunning the protocol resumes from what is there.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol.hpp"

namespace glimpse {

inline constexpr const char* trace_schema_version = "1.2.0";

struct NamedCurve {
  std::string name;
  std::vector<std::int64_t> rounds;
  std::vector<double> values;
};

struct NamedMatrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
};

// Everything one finished run leaves behind.
struct RunRecord {
  std::string id;
  std::int64_t index = 0;
  std::string dataset, dataset_variant, learner, label, learner_version, params_json, oracle, oracle_params, query_rule,
      query_rule_params;
  std::uint64_t seed = 0;
  std::int64_t grid_point = 0;
  std::int64_t rounds = 0;
  double seconds = 0.0;
  // Per-round fields (empty when the protocol keeps only curves); labels 1..K as in the data files.
  std::vector<std::int32_t> y, predicted, proposed;
  std::vector<std::int64_t> row;  // the dataset row (0-based) each round showed
  std::vector<std::uint8_t> correct, queried;
  std::vector<std::pair<std::string, double>> scalars;
  std::vector<NamedCurve> curves;
  std::vector<NamedMatrix> matrices;
};

class TraceStore {
 public:
  // Prepares `output` for `protocol`. Without `force`, an existing output or parts folder must come from
  // the same protocol (same hash), else Error; their complete runs are kept. With `force`, both are removed.
  TraceStore(std::filesystem::path output, const Protocol& protocol, bool force);

  const std::set<std::string>& completed() const noexcept { return completed_; }
  const std::filesystem::path& output() const noexcept { return output_; }
  std::filesystem::path parts_folder() const;

  // Writes one finished run durably; safe to call from several threads (one writes at a time).
  void write(const RunRecord& record);

  // Assembles the output file from the previous output and the parts, writes the summary table, and
  // removes the parts. `total_runs` is the size of the protocol's run list.
  void finalize(std::int64_t total_runs);

 private:
  std::filesystem::path output_;
  const Protocol& protocol_;
  std::set<std::string> completed_;
  std::mutex mutex_;
};

}  // namespace glimpse
