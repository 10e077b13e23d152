// Writing finished runs on a thread of their own, so that no worker waits for the trace store: the HDF5 library is
// serial, and on many cores the runs that finish together would queue for it (issue #57). Workers hand a record over
// and take their next run at once; the writer thread logs it (TraceStore::log) and writes it into the output, in the
// order records came. While runs are queued ahead of it the writer is behind, and a worker logs its run itself before
// handing it over, so that only the output's part (HDF5) is serial. The queue holds at most `max_queued_bytes` of
// per-round data: past that a worker waits (the sweep then runs at the writer's pace). A record handed over but not
// yet logged is lost if the process is killed (kill -9): its run counts as in flight, and the rerun redoes it. A plugin that crashes the process (a fatal signal on another thread: a segfault, an abort)
// does not take finished runs with it: while a writer is open, the signal's handler waits (at most 10 s) for the
// writer thread to write what is queued, then lets the signal end the process as it would have.
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "sweep_profile.hpp"
#include "trace_store.hpp"

namespace glimpse {

class RunWriter {
 public:
  // `written` is called on the writer thread after each record is down (the progress line's count).
  RunWriter(TraceStore& store, std::size_t max_queued_bytes, std::function<void(const RunRecord&)> written);
  ~RunWriter();  // close()s, dropping a failure
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Hands a record over; waits while the queue is full (the time goes to worker.write_wait). Throws the writer's
  // failure (a full disk) once there is one: the sweep stops.
  void submit(RunRecord record, SweepProfile::Worker& worker);
  // Writes what is queued, ends the thread, and rethrows the writer's failure if there was one.
  void close();
  // Seconds the writer thread spent writing (logging and writing into the output), and logging only, for the profile.
  double writing_seconds() const noexcept { return writing_; }
  double logging_seconds() const noexcept { return logging_; }

 private:
  static std::size_t bytes_of(const RunRecord& record) noexcept;
  static void on_fatal_signal(int signal);
  void install_crash_handler();
  void remove_crash_handler() noexcept;
  void abandon(const std::string& id) noexcept;
  void loop();

  TraceStore& store_;
  const std::size_t max_queued_bytes_;
  std::function<void(const RunRecord&)> written_;
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  struct Queued {
    RunRecord record;
    std::optional<RunSource> logged;  // where a worker logged it already
  };
  std::deque<Queued> queue_;
  std::size_t queued_bytes_ = 0;
  bool closing_ = false;
  std::exception_ptr failure_;
  double writing_ = 0.0, logging_ = 0.0;
  std::atomic<bool> crashed_{false};  // a fatal signal on another thread: write what is queued, then stop
  std::atomic<bool> drained_{false};  // the writer thread has stopped (after writing what was queued)
  pthread_t writer_thread_{};         // whose signal must not wait for itself
  std::thread thread_;  // last: starts once the members it uses are ready
};

}  // namespace glimpse
