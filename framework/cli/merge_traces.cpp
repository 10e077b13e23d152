// glimpse merge: the runs of every input, each once, into one assembled trace (merge_traces.hpp).
#include "merge_traces.hpp"

#include <algorithm>
#include <map>

#include "glimpse/error.hpp"
#include "protocol.hpp"
#include "sweep_plan.hpp"
#include "trace_assembly.hpp"
#include "trace_store.hpp"

namespace glimpse {
namespace fs = std::filesystem;

MergeReport merge_traces(const fs::path& output, const std::vector<fs::path>& inputs) {
  // The header comes from the first input that is an assembled file; a shard killed before assembling its
  // file has only its parts folder, whose runs still count.
  const auto assembled = std::find_if(inputs.begin(), inputs.end(), [](const fs::path& p) { return fs::exists(p); });
  if (assembled == inputs.end())
    throw Error(inputs.empty() ? std::string("glimpse merge") : inputs.front().string(),
                inputs.empty() ? "expected at least one trace file to merge"
                               : "no such file (nor is any other input): nothing to take the protocol from");
  const TraceHeader first = TraceHeader::read(*assembled);
  std::map<std::string, RunSource> sources;
  std::map<std::string, std::vector<RunSource>> holders;  // complete runs: every input holding one
  std::map<std::string, RunSource> failed;
  for (const auto& input : inputs) {
    if (fs::exists(input)) {
      const TraceHeader header = TraceHeader::read(input);
      if (header.protocol_hash != first.protocol_hash)
        throw Error(input.string(), "comes from protocol '" + header.protocol_name + "' (hash " + header.protocol_hash +
                                        "), but " + assembled->string() + " from protocol '" + first.protocol_name +
                                        "' (hash " + first.protocol_hash +
                                        "): glimpse merge combines traces of one protocol only");
    } else if (!fs::is_directory(input.string() + ".parts")) {
      throw Error(input.string(), "no such file, nor a parts folder of an unfinished sweep beside it");
    }
    const TraceContents contents =
        read_trace_contents(input, first.protocol_hash, "glimpse merge combines traces of one protocol only");
    for (const auto& [id, source] : contents.complete) holders[id].push_back(source);
    for (const auto& [id, failure] : contents.failed) failed.emplace(id, failure.source);
  }
  MergeReport report;
  report.runs_total = first.runs_total;
  for (const auto& [id, places] : holders) {
    sources.emplace(id, places.front());
    if (places.size() == 1) continue;
    std::vector<fs::path> files;
    for (const auto& place : places) files.push_back(place.file);
    report.duplicates.emplace_back(id, files);
  }
  for (const auto& [id, source] : failed)
    if (sources.emplace(id, source).second) ++report.failed;
  report.complete = static_cast<std::int64_t>(holders.size());
  for (std::int64_t index = 0; index < report.runs_total; ++index) {
    const std::string id = run_id(index, report.runs_total);
    if (!sources.count(id)) report.missing.push_back(id);
  }
  TraceHeader header = first;
  header.shard.clear();
  header.created.clear();
  assemble_trace(output, header, sources);
  return report;
}

}  // namespace glimpse
