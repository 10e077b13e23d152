// Runs handed out across MPI ranks (the optional MPI build component, on when Open MPI is found).
#pragma once

#include <memory>

#include "orchestrator.hpp"

namespace glimpse {

// True when this glimpse was built with MPI (its dispatcher library, libglimpse_mpi, beside libglimpse).
bool mpi_available() noexcept;

// Loads libglimpse_mpi, and with it MPI's libraries, which no other command loads, and returns its dispatcher, which
// initialises MPI (threads: MPI_THREAD_MULTIPLE, as worker threads ask for runs concurrently) for its lifetime.
// Rank 0 coordinates: it owns the output, hands out one run index per request from its pending list, and assembles
// the file once every rank has reported; ranks 1.. are helpers writing parts beside it (the output's folder must be
// shared by all ranks, as a cluster's file system is). Error (--mpi) when built without MPI, when the library cannot
// be loaded, or when MPI lacks thread support.
std::unique_ptr<RunDispatcher> make_mpi_dispatcher();

}  // namespace glimpse
