#pragma once
// An exclusive lock that one process at a time holds (flock on a lock file). The kernel drops it when its holder
// dies, so a killed process never leaves a stale one; the holder removes the file when it lets go.
#include <filesystem>

namespace glimpse {

class FileLock {
 public:
  enum class Mode {
    try_once,  // held() is false when another process holds the lock
    wait,      // blocks until the lock is free
  };
  // Creates `path` if needed (its folder must exist) and locks it; Error naming it if it cannot be created.
  FileLock(std::filesystem::path path, Mode mode);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const noexcept { return fd_ >= 0; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace glimpse
