// Runs handed out across MPI ranks (the optional MPI build component, on when Open MPI is found).
#pragma once

#include <memory>

#include "orchestrator.hpp"

namespace glimpse {

// True when this glimpse was built with MPI.
bool mpi_available() noexcept;

// Initialises MPI (threads: MPI_THREAD_MULTIPLE, as worker threads ask for runs concurrently) for the
// object's lifetime. Rank 0 coordinates: it owns the output, hands out one run index per request from its
// pending list, and assembles the file once every rank has reported; ranks 1.. are helpers writing parts
// beside it (the output's folder must be shared by all ranks, as a cluster's file system is).
// Error when built without MPI or when MPI lacks thread support.
class MpiDispatcher final : public RunDispatcher {
 public:
  MpiDispatcher();
  ~MpiDispatcher() override;
  int rank() const noexcept;
  int size() const noexcept;
  bool coordinator() const override;
  void begin(std::vector<std::int64_t> pending, const std::function<bool()>& interrupted) override;
  std::int64_t next() override;
  void end(SweepResult& result) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace glimpse
