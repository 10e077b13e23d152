// FileLock: flock on a file that is unlinked on release, so a waiter must check it locked the file still at the path.
#include "file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "glimpse/error.hpp"

namespace glimpse {

FileLock::FileLock(std::filesystem::path path, Mode mode) : path_(std::move(path)) {
  // Lock the file, then check it is still the one at the path: a holder that was just finishing may have unlinked
  // the file we opened, and a lock on an unlinked file excludes no one.
  for (;;) {
    const int fd = ::open(path_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(path_.string(), std::string("cannot create the lock file: ") + std::strerror(errno));
    int status = 0;
    do {
      status = ::flock(fd, LOCK_EX | (mode == Mode::try_once ? LOCK_NB : 0));
    } while (status != 0 && errno == EINTR);
    if (status != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK) return;  // try_once, held by another process
      throw Error(path_.string(), std::string("cannot lock: ") + std::strerror(error));
    }
    struct stat held {
    }, current{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &current) == 0 && held.st_ino == current.st_ino &&
        held.st_dev == current.st_dev) {
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace glimpse
