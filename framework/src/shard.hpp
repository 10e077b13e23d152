// Splitting a protocol's runs among independent processes (cluster job-array tasks, MPI ranks): every
// process derives the same assignment from the protocol alone, so no process needs to talk to another.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace glimpse {

struct Shard {
  std::int32_t index = 0;  // 0-based, as Slurm's SLURM_ARRAY_TASK_ID with --array=0-(N-1)
  std::int32_t count = 1;
  bool whole() const noexcept { return count == 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "I/N" (0 <= I < N); `where` names the option in the error message.
Shard parse_shard(const std::string& text, const std::string& where);

// The shard of every run, from the runs' expected costs (in run-index order): longest first, each to the
// shard with the least cost so far (lowest shard on ties). Equal costs thus go round-robin in index order.
// Depends on the costs and `count` only, so every process computes the same assignment.
std::vector<std::int32_t> assign_shards(std::span<const double> costs, std::int32_t count);

// A shard's default trace file: "runs/x.h5" -> "runs/x.shard-2-of-8.h5".
std::filesystem::path shard_output(const std::filesystem::path& output, const Shard& shard);

}  // namespace glimpse
