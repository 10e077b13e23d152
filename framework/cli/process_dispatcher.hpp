// `glimpse run --processes N`: one sweep shared by N processes on this machine, for learners that cannot use threads
// (Python's GIL lets one thread run Python at a time). The first process coordinates as MPI's rank 0 does: it owns
// the output, hands out one run at a time to whichever process asks, and assembles the file; the others are copies
// of it started with the same arguments, which write each finished run as a part beside the output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator.hpp"

namespace glimpse::cli {

// The environment variable that makes a `glimpse run` a helper of a coordinating process; its value is the file
// descriptor of the helper's end of their connection.
inline constexpr const char* process_helper_variable = "GLIMPSE_PROCESS_HELPER";

class ProcessDispatcher final : public RunDispatcher {
 public:
  // Coordinator: starts `processes - 1` helpers, running this executable with `arguments` (those after "glimpse").
  ProcessDispatcher(int processes, std::vector<std::string> arguments);
  // Helper: talks to its coordinator through the file descriptor `connection`.
  explicit ProcessDispatcher(int connection);
  ~ProcessDispatcher() override;
  bool coordinator() const override;
  void begin(std::vector<std::int64_t> pending, const std::function<bool()>& interrupted) override;
  std::int64_t next() override;
  void end(SweepResult& result) override;
  // Coordinator, after end(): whether a helper ended without reporting (its finished runs are in the output, but
  // not in SweepResult's counts).
  bool lost_helpers() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace glimpse::cli
