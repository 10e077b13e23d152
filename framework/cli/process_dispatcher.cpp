#include "process_dispatcher.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include "glimpse/error.hpp"

extern char** environ;

namespace glimpse::cli {
namespace {

// Messages, helper to coordinator: 'N' (the next run, please), then 'D' with three int64 (runs completed, rounds,
// length of the failure messages) and the messages. Coordinator to helper: one int64, a run index or -1.
bool write_all(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}
bool read_all(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

struct ProcessDispatcher::State {
  bool coordinator = true;
  // Coordinator
  int processes = 1;
  std::vector<std::string> arguments;
  std::vector<std::int64_t> pending;
  std::size_t taken = 0;
  std::mutex mutex;
  std::function<bool()> interrupted;
  std::vector<int> connections;  // the coordinator's end, one per helper
  std::vector<pid_t> helpers;
  std::thread server;
  std::int64_t helper_completed = 0, helper_rounds = 0;
  std::vector<std::string> helper_failures;
  std::vector<std::string> lost;  // helpers that ended without reporting
  // Helper
  int connection = -1;

  std::int64_t take() {
    std::lock_guard lock(mutex);
    if ((interrupted && interrupted()) || taken >= pending.size()) return -1;
    return pending[taken++];
  }

  void start_helpers() {
    const std::string exe = boost::dll::program_location().string();
    for (int i = 1; i < processes; ++i) {
      int ends[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        throw Error("--processes", std::string("cannot connect a helper process: ") + std::strerror(errno));
      // The helper's end must survive its exec; the coordinator's must not leak into later helpers.
      const int helper_end = ::dup(ends[1]);
      ::close(ends[1]);
      std::vector<std::string> words{exe, "run"};
      words.insert(words.end(), arguments.begin(), arguments.end());
      std::vector<char*> argv;
      for (auto& w : words) argv.push_back(w.data());
      argv.push_back(nullptr);
      std::string variable = std::string(process_helper_variable) + "=" + std::to_string(helper_end);
      std::vector<char*> envp;
      for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, process_helper_variable, std::strlen(process_helper_variable)) != 0) envp.push_back(*e);
      envp.push_back(variable.data());
      envp.push_back(nullptr);
      pid_t pid = 0;
      const int failed = ::posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data());
      ::close(helper_end);
      if (failed) {
        ::close(ends[0]);
        throw Error("--processes", std::string("cannot start a helper process: ") + std::strerror(failed));
      }
      connections.push_back(ends[0]);
      helpers.push_back(pid);
    }
  }

  // Answers the helpers until each has reported or gone.
  void serve() {
    std::vector<pollfd> watched;
    for (const int fd : connections) watched.push_back({fd, POLLIN, 0});
    std::size_t open = watched.size();
    while (open > 0) {
      if (::poll(watched.data(), watched.size(), -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (std::size_t h = 0; h < watched.size(); ++h) {
        pollfd& w = watched[h];
        if (w.fd < 0 || !(w.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char message = 0;
        bool ok = read_all(w.fd, &message, 1);
        if (ok && message == 'N') {
          const std::int64_t index = take();
          ok = write_all(w.fd, &index, sizeof index);
          if (ok) continue;
        } else if (ok && message == 'D') {
          std::int64_t numbers[3] = {0, 0, 0};
          std::string text;
          ok = read_all(w.fd, numbers, sizeof numbers);
          if (ok && numbers[2] > 0) {
            text.resize(static_cast<std::size_t>(numbers[2]));
            ok = read_all(w.fd, text.data(), text.size());
          }
          if (ok) {
            std::lock_guard lock(mutex);
            helper_completed += numbers[0];
            helper_rounds += numbers[1];
            for (std::size_t start = 0; start < text.size();) {
              const std::size_t stop = text.find('\n', start);
              helper_failures.push_back(text.substr(start, stop - start));
              start = stop == std::string::npos ? text.size() : stop + 1;
            }
          }
        }
        if (!ok) {
          std::lock_guard lock(mutex);
          lost.push_back("helper process " + std::to_string(helpers[h]) +
                         " ended without reporting (killed or crashed); the runs it had finished are kept, a "
                         "rerun does the rest");
        }
        ::close(w.fd);
        w.fd = -1;
        --open;
      }
    }
  }
};

ProcessDispatcher::ProcessDispatcher(int processes, std::vector<std::string> arguments)
    : state_(std::make_unique<State>()) {
  state_->processes = processes;
  state_->arguments = std::move(arguments);
}

ProcessDispatcher::ProcessDispatcher(int connection) : state_(std::make_unique<State>()) {
  state_->coordinator = false;
  state_->connection = connection;
}

ProcessDispatcher::~ProcessDispatcher() {
  if (state_->server.joinable()) state_->server.join();
  for (const pid_t pid : state_->helpers) ::waitpid(pid, nullptr, 0);
  if (state_->connection >= 0) ::close(state_->connection);
}

bool ProcessDispatcher::coordinator() const { return state_->coordinator; }

bool ProcessDispatcher::lost_helpers() const { return !state_->lost.empty(); }

void ProcessDispatcher::begin(std::vector<std::int64_t> pending, const std::function<bool()>& interrupted) {
  if (!state_->coordinator) return;
  state_->pending = std::move(pending);
  state_->interrupted = interrupted;
  state_->start_helpers();
  state_->server = std::thread([this] { state_->serve(); });
}

std::int64_t ProcessDispatcher::next() {
  if (state_->coordinator) return state_->take();
  std::lock_guard lock(state_->mutex);  // one question and its answer at a time on the one connection
  std::int64_t index = -1;
  const char message = 'N';
  if (!write_all(state_->connection, &message, 1) || !read_all(state_->connection, &index, sizeof index)) return -1;
  return index;
}

void ProcessDispatcher::end(SweepResult& result) {
  State& s = *state_;
  if (!s.coordinator) {
    std::string text;
    for (const auto& failure : result.failures) text += failure + "\n";
    const std::int64_t numbers[3] = {result.completed_now, result.rounds, static_cast<std::int64_t>(text.size())};
    const char message = 'D';
    if (write_all(s.connection, &message, 1) && write_all(s.connection, numbers, sizeof numbers))
      write_all(s.connection, text.data(), text.size());
    return;
  }
  if (s.server.joinable()) s.server.join();
  for (const pid_t pid : s.helpers) ::waitpid(pid, nullptr, 0);
  s.helpers.clear();
  result.completed_now += s.helper_completed;
  result.rounds += s.helper_rounds;
  result.failures.insert(result.failures.end(), s.helper_failures.begin(), s.helper_failures.end());
  // A helper that died is not a failed run: its run in flight is missing, and the sweep reads as interrupted.
  for (const auto& message : s.lost) std::cerr << result.output.string() << ": " << message << '\n';
}

}  // namespace glimpse::cli
