// The parts log: how a running sweep keeps each finished run durable until the output is assembled. One
// append-only file per writing process in "<output>.parts/"; docs/trace-schema.md has the layout.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glimpse/error.hpp"

namespace glimpse {

// Where a run lies: in a whole HDF5 file (an assembled output: `size` 0), or in a parts log as the record
// (run_record.hpp's encode_run_record) of `size` bytes at `offset`.
struct RunSource {
  std::filesystem::path file;
  std::uint64_t offset = 0, size = 0;
};

// A parts log: records one after another, each a LogHeader, the run id, then the payload. The first record, 'P', has
// the protocol's hash as its payload (and no id); then 'B' a run began, 'A' it was abandoned (interrupted: nothing
// kept), 'W' it completed and 'F' it failed, each of these two with the run's HDF5 file image as payload (the
// protocol's hash and runs/<id>), so that readers know a run's status without opening its image. A record goes down
// in one write(); one cut short by a kill is the log's last, and a failed write is cut off again (ftruncate), so a
// log is whole records and at most a torn tail, which readers ignore.
struct LogHeader {
  char magic[4] = {'G', 'L', 'O', 'G'};
  char kind = 0;
  char unused[3] = {};
  std::uint32_t id_size = 0;
  std::uint32_t unused_too = 0;
  std::uint64_t payload_size = 0;
};
static_assert(sizeof(LogHeader) == 24 && std::endian::native == std::endian::little);
inline constexpr const char* log_extension = ".log";
// Follows the protocol's hash in a log's first record: a log whose records another version of this layout wrote
// counts as another protocol's (its runs are not read).
inline constexpr const char* log_format_tag = " log 2";

// Calls `take(kind, id, payload_offset, payload_size)` for each whole record of the log at `path`, in order.
template <class Take>
void read_log(const std::filesystem::path& path, Take take) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path.string(), std::string("cannot open the parts log: ") + std::strerror(errno));
  struct stat info {};
  const auto size = ::fstat(fd, &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
  std::uint64_t at = 0;
  LogHeader header;
  std::string id;
  while (at + sizeof header <= size && ::pread(fd, &header, sizeof header, static_cast<off_t>(at)) == sizeof header &&
         std::memcmp(header.magic, "GLOG", 4) == 0 && header.id_size <= 4096) {
    const std::uint64_t payload = at + sizeof header + header.id_size;
    if (payload + header.payload_size > size) break;  // the torn tail
    id.resize(header.id_size);
    if (::pread(fd, id.data(), id.size(), static_cast<off_t>(at + sizeof header)) != static_cast<ssize_t>(id.size()))
      break;
    take(header.kind, id, payload, header.payload_size);
    at = payload + header.payload_size;
  }
  ::close(fd);
}

// The payload at `source`, read from its log.
std::vector<char> read_log_payload(const RunSource& source);

// Removes a parts folder (its files and itself) at once, as fs::remove_all does, but leaves the kernel's work of
// dropping the files' cached pages (most of what removing a large sweep's logs costs) to a detached process that
// holds them open until they are unlinked, so that it is off this process's critical path. Falls back to removing
// them here when that process cannot be made.
void remove_parts_folder(const std::filesystem::path& folder);

// One log of this process in a parts folder, created at its first record (named after the process and a number, never
// one an earlier sweep left, whose tail may be torn) and starting with the protocol's hash. Not thread-safe: a
// process appending from several threads at once gives each its own log (TraceStore).
class PartsLog {
 public:
  PartsLog(std::filesystem::path folder, std::string protocol_hash)
      : folder_(std::move(folder)), protocol_hash_(std::move(protocol_hash)) {}
  ~PartsLog() { close(); }
  PartsLog(const PartsLog&) = delete;
  PartsLog& operator=(const PartsLog&) = delete;

  // Appends one record in one writev; returns where its payload went. A failed write is cut off again (Error naming
  // the log and the system's reason).
  RunSource append(char kind, const std::string& id, std::span<const char> payload);
  // The same with the payload in pieces, written from where they are, one after another.
  RunSource append(char kind, const std::string& id, std::span<const std::span<const char>> payload);
  void close() noexcept;

 private:
  std::filesystem::path folder_, path_;
  std::string protocol_hash_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace glimpse
