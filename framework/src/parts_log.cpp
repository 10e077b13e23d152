// The parts log: records appended whole, or cut off again when a write fails.
#include "parts_log.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <mutex>

namespace glimpse {

std::vector<char> read_log_payload(const RunSource& source) {
  std::vector<char> image(source.size);
  const int fd = ::open(source.file.c_str(), O_RDONLY | O_CLOEXEC);
  const bool read = fd >= 0 && ::pread(fd, image.data(), image.size(), static_cast<off_t>(source.offset)) ==
                                   static_cast<ssize_t>(image.size());
  if (fd >= 0) ::close(fd);
  if (!read) throw Error(source.file.string(), "cannot read a record at byte " + std::to_string(source.offset));
  return image;
}

namespace {

// Holders started by earlier calls, reaped once they have exited (a long-lived process, such as Python's, would
// otherwise collect them as zombies).
std::mutex holders_mutex;
std::vector<pid_t> holders;

// Starts a process holding `held` open until `release` (a pipe's reading end) reads end of file: /bin/cat reading it
// as its input, the files as its descriptors 3, 4, ... and nothing else of ours. Spawned, not forked, so that it costs
// the same whatever this process's size. False when it could not be started.
bool hold_in_another_process(const std::vector<int>& held, int release) {
  const int first = 3, count = static_cast<int>(held.size());
  // Every source moved above the targets 0..first+count-1 first, so that no dup2 below overwrites one still to come.
  std::vector<int> sources;
  for (const int fd : held) sources.push_back(::fcntl(fd, F_DUPFD_CLOEXEC, first + count));
  const int input = ::fcntl(release, F_DUPFD_CLOEXEC, first + count);
  bool started = input >= 0 && std::find(sources.begin(), sources.end(), -1) == sources.end();
  if (started) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    for (int i = 0; i < count; ++i) posix_spawn_file_actions_adddup2(&actions, sources[i], first + i);
    posix_spawn_file_actions_addclosefrom_np(&actions, first + count);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
    char name[] = "cat";
    char* arguments[] = {name, nullptr};
    char* environment[] = {nullptr};
    pid_t holder = 0;
    started = ::posix_spawn(&holder, "/bin/cat", &actions, &attributes, arguments, environment) == 0;
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    std::lock_guard lock(holders_mutex);
    std::erase_if(holders, [](pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) != 0; });
    if (started) holders.push_back(holder);
  }
  for (const int fd : sources)
    if (fd >= 0) ::close(fd);
  if (input >= 0) ::close(input);
  return started;
}

}  // namespace

void remove_parts_folder(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::vector<int> held;
  std::error_code error;
  for (const auto& item : fs::directory_iterator(folder, error)) {
    const int fd = ::open(item.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) held.push_back(fd);
  }
  int release[2] = {-1, -1};
  if (!held.empty() && ::pipe2(release, O_CLOEXEC) == 0 && !hold_in_another_process(held, release[0])) {
    ::close(release[1]);  // nobody holds the files: removing them below frees their pages here
    release[1] = -1;
  }
  for (const int fd : held) ::close(fd);
  if (release[0] >= 0) ::close(release[0]);
  try {
    fs::remove_all(folder);
  } catch (...) {
    if (release[1] >= 0) ::close(release[1]);
    throw;
  }
  if (release[1] >= 0) ::close(release[1]);  // the holder reads end of file and exits, and the pages go with it
}

RunSource PartsLog::append(char kind, const std::string& id, std::span<const char> payload) {
  const std::span<const char> one[1] = {payload};
  return append(kind, id, one);
}

RunSource PartsLog::append(char kind, const std::string& id, std::span<const std::span<const char>> payload) {
  if (fd_ < 0) {
    // A log of this process's own, never one an earlier sweep left (whose tail may be torn).
    for (int k = 0; fd_ < 0; ++k) {
      path_ = folder_ / (std::to_string(::getpid()) + "-" + std::to_string(k) + log_extension);
      fd_ = ::open(path_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
      if (fd_ < 0 && errno != EEXIST)
        throw Error(path_.string(), std::string("cannot create the sweep's parts log: ") + std::strerror(errno));
    }
    size_ = 0;
    const std::string first = protocol_hash_ + log_format_tag;
    append('P', "", first);
  }
  LogHeader header;
  header.kind = kind;
  header.id_size = static_cast<std::uint32_t>(id.size());
  std::vector<iovec> pieces{{&header, sizeof header}, {const_cast<char*>(id.data()), id.size()}};
  for (const auto& piece : payload) {
    header.payload_size += piece.size();
    pieces.push_back({const_cast<char*>(piece.data()), piece.size()});
  }
  const std::uint64_t total = sizeof header + id.size() + header.payload_size;
  std::uint64_t written = 0;
  std::vector<iovec> rest;
  while (written < total) {
    // A short write (a signal, a full disk) continues where it stopped: skip what went down already.
    rest.clear();
    std::uint64_t skip = written;
    for (const auto& piece : pieces) {
      if (skip >= piece.iov_len) {
        skip -= piece.iov_len;
        continue;
      }
      rest.push_back({static_cast<char*>(piece.iov_base) + skip, piece.iov_len - skip});
      skip = 0;
    }
    const ssize_t n = ::writev(fd_, rest.data(), static_cast<int>(rest.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        // The torn record stays; readers stop there, and so must this log: later records go to a new one.
        ::close(fd_);
        fd_ = -1;
      }
      throw Error(path_.string(), std::string("cannot write a finished run's record: ") + std::strerror(error));
    }
    written += static_cast<std::uint64_t>(n);
  }
  const RunSource payload_place{path_, size_ + sizeof header + id.size(), header.payload_size};
  size_ += total;
  return payload_place;
}

void PartsLog::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace glimpse
