// `glimpse merge`: combining the trace files of one protocol's shards (cluster job-array tasks), beside the CLI
// like the MPI dispatcher; what it reads and writes is the core's trace store (trace_store.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace glimpse {

// Combines trace files of one protocol (typically its shards) into `output`. Refuses files of different
// protocols (Error naming both). Reads each input's parts folder too, so a killed shard's finished runs count.
struct MergeReport {
  std::int64_t runs_total = 0, complete = 0, failed = 0;
  std::vector<std::string> missing;                                                    // run ids in no input
  std::vector<std::pair<std::string, std::vector<std::filesystem::path>>> duplicates;  // complete in several
};
MergeReport merge_traces(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs);

}  // namespace glimpse
