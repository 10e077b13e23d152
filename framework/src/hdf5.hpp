// A thin checked wrapper over the HDF5 C API: RAII handles, one throwing function per operation
// (the message carries HDF5's own error stack), 1-D chunked compressed datasets, attributes.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace glimpse::h5 {

class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) noexcept : id_(id) {}
  Handle(Handle&& other) noexcept : id_(other.id_) { other.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      close();
      id_ = other.id_;
      other.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { close(); }

  hid_t id() const noexcept { return id_; }
  void release() noexcept { id_ = H5I_INVALID_HID; }  // forget the id without closing it (its owner closes it)
  explicit operator bool() const noexcept { return id_ >= 0; }
  void close() noexcept;  // nothrow: safe in destructors

 private:
  hid_t id_ = H5I_INVALID_HID;
};

Handle create_file(const std::filesystem::path& path);  // truncates
Handle open_file(const std::filesystem::path& path, bool writable);
// Closes a file, throwing when its last data cannot be written (Handle's destructor ignores that).
void close_file(Handle& file);
void flush(const Handle& file);
bool is_hdf5(const std::filesystem::path& path) noexcept;

Handle create_group(const Handle& parent, const std::string& name);
Handle open_group(const Handle& parent, const std::string& name);
bool exists(const Handle& parent, const std::string& path) noexcept;
std::vector<std::string> children(const Handle& group);  // link names in name order
void copy_object(const Handle& from, const std::string& from_path, const Handle& to, const std::string& to_path);

void write_attribute(const Handle& object, const std::string& name, const std::string& value);
void write_attribute(const Handle& object, const std::string& name, std::int64_t value);
void write_attribute(const Handle& object, const std::string& name, double value);
bool has_attribute(const Handle& object, const std::string& name);
std::string read_string_attribute(const Handle& object, const std::string& name);
std::int64_t read_int_attribute(const Handle& object, const std::string& name);
double read_double_attribute(const Handle& object, const std::string& name);
std::vector<std::string> attribute_names(const Handle& object);

// 1-D datasets of int32, int64, uint8, float or double; chunked, with shuffle + deflate from 64 KiB up.
template <class T>
void write_vector(const Handle& parent, const std::string& name, std::span<const T> values);
// Integers in the narrowest file type that holds all of them (signed input: int8, int16, int32 or int64; unsigned
// input keeps its type), so that per-round labels (1..K) take one byte instead of four; readers convert, or get the
// narrower signed type. Deflate::always deflates every column (shuffled when wider than a byte); never deflates none;
// flags deflates the unsigned one-byte (0/1 flag) columns where a sample of them shrinks to a quarter or less. Except
// with always, a column of one value becomes the dataset's fill value, with no data written.
enum class Deflate { always, never, flags };
template <class T>
void write_integers(const Handle& parent, const std::string& name, std::span<const T> values,
                    Deflate deflate = Deflate::never);
// write_integers in two steps, so that a run's thread narrows and deflates its columns (encode_integers: no HDF5
// call, safe on any thread) and only the writing (write_column) takes the HDF5 library's lock.
struct IntegerColumn {
  IntegerColumn() = default;
  IntegerColumn(IntegerColumn&&) noexcept = default;  // `raw` may point into `narrowed`: moved, never copied
  IntegerColumn& operator=(IntegerColumn&&) noexcept = default;

  std::string name;
  std::int64_t size = 0;
  std::size_t width = 8;  // bytes per stored value
  bool is_signed = true;
  std::optional<std::int64_t> constant;  // every value equal: stored as the fill value, no data
  // The stored values, when not deflated: the caller's own values when they are in the stored width already (they
  // must then outlive the column), else `narrowed`.
  std::span<const unsigned char> raw;
  std::vector<unsigned char> narrowed;
  std::vector<std::vector<unsigned char>> deflated_chunks;  // else each chunk as HDF5's filters store it

  std::int64_t chunk_values() const noexcept { return std::max<std::int64_t>(1, std::min<std::int64_t>(size, 65536)); }
};
template <class T>
IntegerColumn encode_integers(std::string name, std::span<const T> values, Deflate deflate = Deflate::never);
void write_column(const Handle& parent, const IntegerColumn& column);
template <class T>
std::vector<T> read_vector(const Handle& parent, const std::string& name);
// Row-major rows x columns matrices of float (a dataset's rows) or double (metric results such as confusion
// matrices), stored contiguous and uncompressed so they load at disk speed.
template <class T>
void write_matrix(const Handle& parent, const std::string& name, std::span<const T> values, std::int64_t rows,
                  std::int64_t columns);
template <class T>
std::vector<T> read_matrix(const Handle& parent, const std::string& name, std::int64_t& rows, std::int64_t& columns);
// Where a 2-D little-endian float32 matrix lies in its file when it is stored contiguous and unfiltered (so it can
// be memory-mapped instead of read): byte offset and shape; nullopt for any other layout.
struct ContiguousMatrix {
  std::uint64_t offset = 0;
  std::int64_t rows = 0, columns = 0;
};
std::optional<ContiguousMatrix> contiguous_float_matrix(const Handle& parent, const std::string& name);
// A scalar variable-length UTF-8 string dataset (for large text such as the protocol).
void write_text(const Handle& parent, const std::string& name, const std::string& text);
std::string read_text(const Handle& parent, const std::string& name);

// A table (compound dataset) with string, int64 and double columns, one row per entry.
struct TableColumn {
  enum class Type { text, integer, real } type;
  std::string name;
  std::vector<std::string> texts;
  std::vector<std::int64_t> integers;
  std::vector<double> reals;
};
void write_table(const Handle& parent, const std::string& name, const std::vector<TableColumn>& columns,
                 std::size_t rows);
// The same table from rows the caller laid out itself, for a large table whose text cells repeat (no copy of each
// string per row): `columns` gives names and types only; each row holds the columns in order, 8 bytes each, a text
// cell as a const char* to a NUL-terminated string kept alive until the call returns.
void write_table_rows(const Handle& parent, const std::string& name, const std::vector<TableColumn>& columns,
                      const void* rows, std::size_t count);
// (Reading tables back is presentation's: presentation/trace_reading.hpp.)

}  // namespace glimpse::h5
