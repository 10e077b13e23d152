// Where a sweep's time goes across its worker threads (glimpse run --profile, benchmarks/many_core_scaling.sh):
// planning before the first run, each thread's runs (setting up, running, waiting for the writer thread), the idle
// tail while the last runs finish, the writer thread's time writing, and assembling the output after.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace glimpse {

struct SweepProfile {
  // One worker thread's time from the first run handed out to the last run finished by any thread.
  struct Worker {
    std::int64_t runs = 0;
    double setup = 0.0;       // making the run's data, plugins and record ready
    double run = 0.0;         // its round loop or batch fit, metrics and learner reports
    double logging = 0.0;     // logging its finished runs itself, when the writer thread was busy (RunWriter)
    double write_wait = 0.0;  // waiting to hand a finished run to the writer thread (its queue was full)
    double idle_tail = 0.0;   // from this thread's last run to the end of the workers' phase (nothing left to take)
    double busy() const noexcept { return setup + run + logging + write_wait; }
  };
  int threads = 0;
  double wall = 0.0;       // the whole sweep, planning to finishing
  double planning = 0.0;   // datasets loaded and prepared, runs expanded, the output opened
  double workers = 0.0;    // the threads' phase, wall time
  double finishing = 0.0;  // the output assembled and closed
  double writer = 0.0;     // the writer thread's time writing runs (serial: HDF5 is), overlapping the workers
  double writer_logging = 0.0;  // the part of `writer` spent logging runs, which workers do too when it is busy
  std::vector<Worker> per_thread;
  std::int64_t runs() const noexcept {
    std::int64_t n = 0;
    for (const auto& w : per_thread) n += w.runs;
    return n;
  }
  // The work no other thread can share: planning and finishing. (The writer's runs are serial too, but overlap the
  // workers: they bound the sweep only when they take longer than the workers.)
  double serial() const noexcept { return planning + finishing; }
};

}  // namespace glimpse
