// The parts log: records appended whole, or cut off again when a write fails.
#include "parts_log.hpp"

#include <sys/uio.h>

#include <cerrno>

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
