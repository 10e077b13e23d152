// The writer thread of a sweep (run_writer.hpp).
#include "run_writer.hpp"

#include <signal.h>
#include <time.h>

#include <array>
#include <chrono>

namespace glimpse {
using Clock = std::chrono::steady_clock;

namespace {
// The open writer a fatal signal drains (one at a time: a second writer opened meanwhile has no handler), and the
// handlers the signals had before.
std::atomic<RunWriter*> crash_drained_writer{nullptr};
constexpr std::array<int, 5> fatal_signals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
std::array<struct sigaction, fatal_signals.size()> previous_actions{};
}  // namespace

RunWriter::RunWriter(TraceStore& store, std::size_t max_queued_bytes, std::function<void(const RunRecord&)> written)
    : store_(store), max_queued_bytes_(max_queued_bytes), written_(std::move(written)), thread_([this] { loop(); }) {
  writer_thread_ = thread_.native_handle();
  install_crash_handler();
}

RunWriter::~RunWriter() {
  try {
    close();
  } catch (...) {  // the sweep already reports its first failure
  }
}

void RunWriter::install_crash_handler() {
  RunWriter* none = nullptr;
  if (!crash_drained_writer.compare_exchange_strong(none, this)) return;
  struct sigaction action {};
  action.sa_handler = &RunWriter::on_fatal_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < fatal_signals.size(); ++i) sigaction(fatal_signals[i], &action, &previous_actions[i]);
}

void RunWriter::remove_crash_handler() noexcept {
  if (crash_drained_writer.load() != this) return;  // another writer's handler, or none
  for (std::size_t i = 0; i < fatal_signals.size(); ++i) sigaction(fatal_signals[i], &previous_actions[i], nullptr);
  crash_drained_writer.store(nullptr);
}

// Only async-signal-safe calls here: atomics, nanosleep, sigaction, raise.
void RunWriter::on_fatal_signal(int signal) {
  RunWriter* writer = crash_drained_writer.load();
  if (writer && !pthread_equal(pthread_self(), writer->writer_thread_) && !writer->crashed_.exchange(true)) {
    const timespec pause{0, 10'000'000};
    for (int waited = 0; waited < 1000 && !writer->drained_.load(); ++waited) nanosleep(&pause, nullptr);
  }
  for (std::size_t i = 0; i < fatal_signals.size(); ++i)
    if (fatal_signals[i] == signal) sigaction(signal, &previous_actions[i], nullptr);
  raise(signal);  // delivered once this handler returns (a fault re-executed faults again): the process ends as it would
}

std::size_t RunWriter::bytes_of(const RunRecord& record) noexcept {
  std::size_t bytes = 0;
  for (const RoundColumn* column : {&record.y, &record.predicted, &record.proposed, &record.row, &record.correct,
                                    &record.queried})
    bytes += static_cast<std::size_t>(column->size()) * column->width();
  for (const auto& curve : record.curves) bytes += curve.rounds.size() * sizeof(std::int64_t) + curve.values.size() * 8;
  for (const auto& matrix : record.matrices) bytes += matrix.values.size() * sizeof(double);
  return bytes;
}

void RunWriter::submit(RunRecord record, SweepProfile::Worker& worker) {
  const std::size_t bytes = bytes_of(record);
  std::optional<RunSource> logged;
  bool writer_busy = false;
  {
    std::lock_guard lock(mutex_);
    writer_busy = !queue_.empty() && !failure_;
  }
  // With runs queued ahead, the writer thread is behind: this worker logs its run itself (into a log of its own), so
  // only the output's part is left serial. Otherwise the writer logs it, and a worker on a machine with a core to
  // spare does not wait for the disk.
  if (writer_busy) {
    const auto start = Clock::now();
    try {
      logged = store_.log(record);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    worker.logging += std::chrono::duration<double>(Clock::now() - start).count();
  }
  const auto asked = Clock::now();
  std::unique_lock lock(mutex_);
  // An empty queue takes any record, however large, so that one run never waits for itself.
  not_full_.wait(lock, [&] { return failure_ || queue_.empty() || queued_bytes_ + bytes <= max_queued_bytes_; });
  worker.write_wait += std::chrono::duration<double>(Clock::now() - asked).count();
  if (failure_) {
    if (!logged) abandon(record.id);
    std::rethrow_exception(failure_);
  }
  queue_.push_back({std::move(record), std::move(logged)});
  queued_bytes_ += bytes;
  not_empty_.notify_one();
}

void RunWriter::loop() {
  for (;;) {
    Queued next;
    {
      std::unique_lock lock(mutex_);
      // A short wait, so that a crash elsewhere (which cannot notify from its signal handler) is seen.
      while (!closing_ && queue_.empty() && !crashed_.load())
        not_empty_.wait_for(lock, std::chrono::milliseconds(20));
      if (queue_.empty()) {  // closing, or crashing, and everything is written
        drained_.store(true);
        return;
      }
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    const std::size_t bytes = bytes_of(next.record);
    const auto start = Clock::now();
    try {
      if (!next.logged) {
        next.logged = store_.log(next.record);
        logging_ += std::chrono::duration<double>(Clock::now() - start).count();
      }
      store_.write(next.record, next.logged);
      written_(next.record);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      for (const Queued& dropped : queue_)
        if (!dropped.logged) abandon(dropped.record.id);
      queue_.clear();
      queued_bytes_ = 0;
      not_full_.notify_all();
      drained_.store(true);
      return;
    }
    writing_ += std::chrono::duration<double>(Clock::now() - start).count();
    std::lock_guard lock(mutex_);
    queued_bytes_ -= bytes;
    not_full_.notify_all();
  }
}

// A record that will not be written: its run is no longer in flight, so a rerun does not report it as interrupted.
// (The log may be what failed: then the rerun finds the run begun and redoes it all the same.)
void RunWriter::abandon(const std::string& id) noexcept {
  try {
    store_.abandon(id);
  } catch (...) {
  }
}

void RunWriter::close() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  not_empty_.notify_all();
  if (thread_.joinable()) thread_.join();
  remove_crash_handler();
  if (failure_) {
    const std::exception_ptr failure = failure_;
    failure_ = nullptr;
    std::rethrow_exception(failure);
  }
}

}  // namespace glimpse
