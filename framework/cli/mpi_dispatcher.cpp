// The MPI dispatcher: rank 0 hands out run indices on request (a serving thread), the others ask for them. Built
// into libglimpse_mpi, which the CLI loads only for --mpi (mpi_library.cpp), so that MPI's libraries cost a process
// that does not use them nothing.
#include <memory>

#include "glimpse/error.hpp"
#include "orchestrator.hpp"

// The C API only: Open MPI's deprecated C++ bindings would need their own library.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace glimpse {
namespace {

enum Tag : int { request = 1, reply = 2, done = 3, failure_text = 4 };

// Initialises MPI (threads: MPI_THREAD_MULTIPLE, as worker threads ask for runs concurrently) for the object's
// lifetime; see make_mpi_dispatcher (mpi_dispatcher.hpp).
class MpiDispatcher final : public RunDispatcher {
 public:
  MpiDispatcher();
  ~MpiDispatcher() override;
  bool coordinator() const override;
  void begin(std::vector<std::int64_t> pending, const std::function<bool()>& interrupted) override;
  std::int64_t next() override;
  void end(SweepResult& result) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct MpiDispatcher::State {
  int rank = 0, size = 1;
  // Coordinator.
  std::vector<std::int64_t> pending;
  std::atomic<std::size_t> handed{0};
  const std::function<bool()>* interrupted = nullptr;
  std::jthread server;
  std::int64_t helper_completed = 0, helper_rounds = 0;
  std::vector<std::string> helper_failures;
  // Helpers: one request in flight per rank.
  std::mutex asking;

  std::int64_t take() {
    if (interrupted && (*interrupted)()) return -1;
    const std::size_t position = handed++;
    return position < pending.size() ? pending[position] : -1;
  }
  // Rank 0's serving loop: answers requests until every helper said it is done. Polls rather than blocks,
  // because a blocking MPI receive spins a core the runs need.
  void serve() {
    int finished = 0;
    while (finished < size - 1) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
      if (!arrived) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      const int from = status.MPI_SOURCE;
      if (status.MPI_TAG == request) {
        int unused = 0;
        MPI_Recv(&unused, 1, MPI_INT, from, request, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const std::int64_t index = take();
        MPI_Send(&index, 1, MPI_INT64_T, from, reply, MPI_COMM_WORLD);
      } else if (status.MPI_TAG == done) {
        std::int64_t numbers[3];  // completed, rounds, length of the failure messages
        MPI_Recv(numbers, 3, MPI_INT64_T, from, done, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        helper_completed += numbers[0];
        helper_rounds += numbers[1];
        if (numbers[2] > 0) {
          std::string text(static_cast<std::size_t>(numbers[2]), '\0');
          MPI_Recv(text.data(), static_cast<int>(numbers[2]), MPI_CHAR, from, failure_text, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
          for (std::size_t start = 0; start < text.size();) {
            const std::size_t end = text.find('\n', start);
            helper_failures.push_back(text.substr(start, end - start));
            start = end == std::string::npos ? text.size() : end + 1;
          }
        }
        ++finished;
      }
    }
  }
};

MpiDispatcher::MpiDispatcher() : state_(std::make_unique<State>()) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    throw Error("--mpi", "this MPI library does not support MPI_THREAD_MULTIPLE, which glimpse's worker threads need");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &state_->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &state_->size);
}

MpiDispatcher::~MpiDispatcher() {
  if (state_->server.joinable()) state_->server.join();
  MPI_Finalize();
}

bool MpiDispatcher::coordinator() const { return state_->rank == 0; }

void MpiDispatcher::begin(std::vector<std::int64_t> pending, const std::function<bool()>& interrupted) {
  // Helpers wait here until rank 0 has prepared the output (lock taken, stale parts removed).
  MPI_Barrier(MPI_COMM_WORLD);
  if (!coordinator()) return;
  state_->pending = std::move(pending);
  state_->interrupted = &interrupted;
  state_->server = std::jthread([state = state_.get()] { state->serve(); });
}

std::int64_t MpiDispatcher::next() {
  if (coordinator()) return state_->take();
  std::lock_guard lock(state_->asking);
  int unused = 0;
  std::int64_t index = -1;
  MPI_Send(&unused, 1, MPI_INT, 0, request, MPI_COMM_WORLD);
  MPI_Recv(&index, 1, MPI_INT64_T, 0, reply, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return index;
}

void MpiDispatcher::end(SweepResult& result) {
  if (coordinator()) {
    state_->server.join();
    result.completed_now += state_->helper_completed;
    result.rounds += state_->helper_rounds;
    result.failures.insert(result.failures.end(), state_->helper_failures.begin(), state_->helper_failures.end());
    return;
  }
  std::string text;
  for (const auto& failure : result.failures) text += (text.empty() ? "" : "\n") + failure;
  const std::int64_t numbers[3] = {result.completed_now, result.rounds, static_cast<std::int64_t>(text.size())};
  MPI_Send(numbers, 3, MPI_INT64_T, 0, done, MPI_COMM_WORLD);
  if (!text.empty()) MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, failure_text, MPI_COMM_WORLD);
}

}  // namespace
}  // namespace glimpse

// What the CLI looks up after loading the library (mpi_library.cpp); errors leave as glimpse::Error.
extern "C" __attribute__((visibility("default"))) glimpse::RunDispatcher* glimpse_mpi_dispatcher_new() {
  return new glimpse::MpiDispatcher();
}
