// HDF5 C API wrapper.
#include "hdf5.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "glimpse/error.hpp"
#include "hdf5_checks.hpp"

namespace glimpse::h5 {
using detail::check;
using detail::check_in;
using detail::check_status;
using detail::string_type;
namespace {

// Silence HDF5's automatic printing; errors are reported through exceptions instead. The thread-safe library
// (Debian's) keeps one error stack, with its printing setting, per thread: so once per thread.
void quiet() {
  thread_local bool quieted = false;
  if (quieted) return;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  quieted = true;
}

herr_t collect(unsigned, const H5E_error2_t* error, void* out) {
  auto& text = *static_cast<std::string*>(out);
  if (error->desc && *error->desc) text += std::string(text.empty() ? "" : "; ") + error->desc;
  return 0;
}

[[noreturn]] void fail(const std::string& what) {
  std::string stack;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &stack);
  H5Eclear2(H5E_DEFAULT);
  throw Error("HDF5: " + what + (stack.empty() ? "" : " (" + stack + ")"));
}

// T's HDF5 types: in memory (native) and on disk (little-endian, so files read the same on any machine).
struct TypeIds {
  hid_t native, file;
};
template <class T>
TypeIds type_ids() {
  if constexpr (std::is_same_v<T, std::int32_t>) return {H5T_NATIVE_INT32, H5T_STD_I32LE};
  if constexpr (std::is_same_v<T, std::int64_t>) return {H5T_NATIVE_INT64, H5T_STD_I64LE};
  if constexpr (std::is_same_v<T, std::uint8_t>) return {H5T_NATIVE_UINT8, H5T_STD_U8LE};
  if constexpr (std::is_same_v<T, double>) return {H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE};
  if constexpr (std::is_same_v<T, float>) return {H5T_NATIVE_FLOAT, H5T_IEEE_F32LE};
}

Handle scalar_space() { return Handle(check(H5Screate(H5S_SCALAR), "creating a scalar dataspace")); }

Handle open_attribute_for_write(const Handle& object, const std::string& name, hid_t type) {
  if (H5Aexists(object.id(), name.c_str()) > 0)
    check_status(H5Adelete(object.id(), name.c_str()), "replacing attribute '" + name + "'");
  const Handle space = scalar_space();
  return Handle(check(H5Acreate2(object.id(), name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT),
                      "creating attribute '" + name + "'"));
}

}  // namespace

namespace detail {
hid_t check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}
hid_t check_in(hid_t id, hid_t location, const std::string& what) {
  if (id >= 0) return id;
  std::string file(256, '\0');
  const ssize_t length = H5Fget_name(location, file.data(), file.size());
  if (length > 0 && static_cast<std::size_t>(length) >= file.size()) {
    file.resize(static_cast<std::size_t>(length) + 1);
    H5Fget_name(location, file.data(), file.size());
  }
  file.resize(length > 0 ? static_cast<std::size_t>(length) : 0);
  fail(file.empty() ? what : what + " in " + file);
}
void check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}
Handle string_type() {
  Handle type(check(H5Tcopy(H5T_C_S1), "copying the string type"));
  check_status(H5Tset_size(type.id(), H5T_VARIABLE), "making a variable-length string type");
  check_status(H5Tset_cset(type.id(), H5T_CSET_UTF8), "setting UTF-8");
  return type;
}
Handle conversion_transfer(std::size_t elements, std::size_t element_bytes) {
  constexpr std::size_t default_buffer = 1 << 20;  // HDF5's H5D_TEMP_BUF_SIZE
  const std::size_t fits = std::max<std::size_t>(elements, 1) * std::max<std::size_t>(element_bytes, 64);
  Handle properties(check(H5Pcreate(H5P_DATASET_XFER), "creating transfer properties"));
  check_status(H5Pset_buffer(properties.id(), std::min(fits, default_buffer), nullptr, nullptr),
               "setting the conversion buffer");
  return properties;
}
}  // namespace detail

// Any object but a file closes when its last reference goes, as its own H5xclose would close it. A file goes through
// H5Fclose, which also flushes a file opened more than once.
void Handle::close() noexcept {
  if (id_ < 0) return;
  if (H5Iget_type(id_) == H5I_FILE)
    H5Fclose(id_);
  else
    H5Idec_ref(id_);
  id_ = H5I_INVALID_HID;
}

Handle create_file(const std::filesystem::path& path) {
  quiet();
  // Objects of 1 MiB or more start on a 4 KiB boundary, so a dataset cache's rows can be memory-mapped aligned.
  const Handle access(check(H5Pcreate(H5P_FILE_ACCESS), "creating file access properties"));
  check_status(H5Pset_alignment(access.id(), 1 << 20, 4096), "setting the file's alignment");
  // An object's metadata leaves the cache when the object is closed: a sweep's output writes each run's groups and
  // datasets once, so its run writer flushes them beside the workers, run by run, instead of leaving thousands of
  // small dirty entries for the serial close (0.10 -> 0.055 s of finishing on 800 runs, #57).
  check_status(H5Pset_evict_on_close(access.id(), true), "setting the file's evict-on-close");
  return Handle(
      check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.id()), "cannot create '" + path.string() + "'"));
}

void close_file(Handle& file) {
  const hid_t id = file.id();
  file.release();
  check_status(H5Fclose(id), "writing and closing a file");
}

Handle open_file(const std::filesystem::path& path, bool writable) {
  quiet();
  return Handle(check(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT),
                      "cannot open '" + path.string() + "'"));
}

void flush(const Handle& file) { check_status(H5Fflush(file.id(), H5F_SCOPE_GLOBAL), "flushing"); }

bool is_hdf5(const std::filesystem::path& path) noexcept {
  quiet();
  return H5Fis_hdf5(path.c_str()) > 0;
}

Handle create_group(const Handle& parent, const std::string& name) {
  return Handle(check(H5Gcreate2(parent.id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      "creating group '" + name + "'"));
}

Handle open_group(const Handle& parent, const std::string& name) {
  return Handle(check_in(H5Gopen2(parent.id(), name.c_str(), H5P_DEFAULT), parent.id(), "opening group '" + name + "'"));
}

bool exists(const Handle& parent, const std::string& path) noexcept {
  // H5Lexists needs every intermediate link to exist: check each prefix.
  std::size_t pos = 0;
  while (true) {
    pos = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, pos);
    if (H5Lexists(parent.id(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (pos == std::string::npos) return true;
  }
}

std::vector<std::string> children(const Handle& group) {
  std::vector<std::string> names;
  const auto add = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  check_status(H5Literate(group.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr, add, &names), "listing a group");
  return names;
}

void copy_object(const Handle& from, const std::string& from_path, const Handle& to, const std::string& to_path) {
  check_status(H5Ocopy(from.id(), from_path.c_str(), to.id(), to_path.c_str(), H5P_DEFAULT, H5P_DEFAULT),
               "copying '" + from_path + "'");
}

void write_attribute(const Handle& object, const std::string& name, const std::string& value) {
  const Handle type = string_type();
  const Handle attribute = open_attribute_for_write(object, name, type.id());
  const char* text = value.c_str();
  check_status(H5Awrite(attribute.id(), type.id(), &text), "writing attribute '" + name + "'");
}
void write_attribute(const Handle& object, const std::string& name, std::int64_t value) {
  const Handle attribute = open_attribute_for_write(object, name, H5T_STD_I64LE);
  check_status(H5Awrite(attribute.id(), H5T_NATIVE_INT64, &value), "writing attribute '" + name + "'");
}
void write_attribute(const Handle& object, const std::string& name, double value) {
  const Handle attribute = open_attribute_for_write(object, name, H5T_IEEE_F64LE);
  check_status(H5Awrite(attribute.id(), H5T_NATIVE_DOUBLE, &value), "writing attribute '" + name + "'");
}

bool has_attribute(const Handle& object, const std::string& name) { return H5Aexists(object.id(), name.c_str()) > 0; }

std::string read_string_attribute(const Handle& object, const std::string& name) {
  const Handle attribute(check_in(H5Aopen(object.id(), name.c_str(), H5P_DEFAULT), object.id(), "opening attribute '" + name + "'"));
  const Handle type = string_type();
  char* text = nullptr;
  check_status(H5Aread(attribute.id(), type.id(), &text), "reading attribute '" + name + "'");
  std::string value = text ? text : "";
  const Handle space = scalar_space();
  H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, &text);
  return value;
}
namespace {
template <class T>
T read_number_attribute(const Handle& object, const std::string& name) {
  const Handle attribute(check_in(H5Aopen(object.id(), name.c_str(), H5P_DEFAULT), object.id(), "opening attribute '" + name + "'"));
  T value = 0;
  check_status(H5Aread(attribute.id(), type_ids<T>().native, &value), "reading attribute '" + name + "'");
  return value;
}
}  // namespace
std::int64_t read_int_attribute(const Handle& object, const std::string& name) {
  return read_number_attribute<std::int64_t>(object, name);
}
double read_double_attribute(const Handle& object, const std::string& name) {
  return read_number_attribute<double>(object, name);
}

std::vector<std::string> attribute_names(const Handle& object) {
  std::vector<std::string> names;
  const auto add = [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  check_status(H5Aiterate2(object.id(), H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, add, &names), "listing attributes");
  return names;
}

namespace {
// A `rank`-dimensional array of T (rank 1 or 2). With `deflate_large`, one of 64 KiB or more is chunked and deflated.
template <class T>
void write_array(const Handle& parent, const std::string& name, std::span<const T> values, int rank,
                 const hsize_t* dims, bool deflate_large) {
  const Handle space(check(H5Screate_simple(rank, dims, nullptr), "creating a dataspace"));
  const Handle properties(check(H5Pcreate(H5P_DATASET_CREATE), "creating dataset properties"));
  // Deflated from 64 KiB up only: a run's curve of a few hundred points cost more to deflate and inflate (zlib sets
  // up some 256 KiB of state each time) than the few kB it saved, 0.03 s of a 200-run sweep's 1.6 s (issue #31).
  // Below that the array is stored in one piece (contiguous): a chunked one adds an index of about 2 kB, more than
  // a short curve's values.
  if (deflate_large && values.size() * sizeof(T) >= 65536) {
    // Chunks of up to 64 Ki entries: large enough to compress well, small enough to read a window.
    const hsize_t chunk = std::min<hsize_t>(values.size(), 65536);
    check_status(H5Pset_chunk(properties.id(), 1, &chunk), "setting the chunk size");
    if (sizeof(T) > 1) check_status(H5Pset_shuffle(properties.id()), "enabling shuffle");
    // Level 1: on per-round arrays level 4 made the file 3% smaller for 1.6x the compression time.
    check_status(H5Pset_deflate(properties.id(), 1), "enabling deflate");
  }
  const Handle dataset(check(
      H5Dcreate2(parent.id(), name.c_str(), type_ids<T>().file, space.id(), H5P_DEFAULT, properties.id(), H5P_DEFAULT),
      "creating dataset '" + name + "'"));
  if (!values.empty())
    check_status(H5Dwrite(dataset.id(), type_ids<T>().native, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
                 "writing dataset '" + name + "'");
}

// A `rank`-dimensional array of T, its extents into `dims`; Error when the dataset has another rank.
template <class T>
std::vector<T> read_array(const Handle& parent, const std::string& name, int rank, hsize_t* dims) {
  const Handle dataset(check_in(H5Dopen2(parent.id(), name.c_str(), H5P_DEFAULT), parent.id(), "opening dataset '" + name + "'"));
  const Handle space(check(H5Dget_space(dataset.id()), "reading the shape of '" + name + "'"));
  if (H5Sget_simple_extent_ndims(space.id()) != rank)
    throw Error("HDF5: dataset '" + name + "' is not " + std::to_string(rank) + "-D");
  H5Sget_simple_extent_dims(space.id(), dims, nullptr);
  std::vector<T> values(rank == 1 ? dims[0] : dims[0] * dims[1]);
  if (!values.empty())
    check_status(H5Dread(dataset.id(), type_ids<T>().native, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
                 "reading dataset '" + name + "'");
  return values;
}
}  // namespace

template <class T>
void write_vector(const Handle& parent, const std::string& name, std::span<const T> values) {
  const hsize_t size = values.size();
  write_array(parent, name, values, 1, &size, true);
}

template <class T>
std::vector<T> read_vector(const Handle& parent, const std::string& name) {
  hsize_t size = 0;
  return read_array<T>(parent, name, 1, &size);
}

template void write_vector<std::int32_t>(const Handle&, const std::string&, std::span<const std::int32_t>);
template void write_vector<std::int64_t>(const Handle&, const std::string&, std::span<const std::int64_t>);
template void write_vector<std::uint8_t>(const Handle&, const std::string&, std::span<const std::uint8_t>);
template void write_vector<float>(const Handle&, const std::string&, std::span<const float>);
template void write_vector<double>(const Handle&, const std::string&, std::span<const double>);
template std::vector<std::int32_t> read_vector<std::int32_t>(const Handle&, const std::string&);
template std::vector<std::int64_t> read_vector<std::int64_t>(const Handle&, const std::string&);
template std::vector<std::uint8_t> read_vector<std::uint8_t>(const Handle&, const std::string&);
template std::vector<float> read_vector<float>(const Handle&, const std::string&);
template std::vector<double> read_vector<double>(const Handle&, const std::string&);

// Matrices are stored in one piece, never chunked: a dataset cache's rows are memory-mapped where they lie.
template <class T>
void write_matrix(const Handle& parent, const std::string& name, std::span<const T> values, std::int64_t rows,
                  std::int64_t columns) {
  const hsize_t dims[2] = {static_cast<hsize_t>(rows), static_cast<hsize_t>(columns)};
  write_array(parent, name, values, 2, dims, false);
}
template <class T>
std::vector<T> read_matrix(const Handle& parent, const std::string& name, std::int64_t& rows, std::int64_t& columns) {
  hsize_t dims[2] = {0, 0};
  std::vector<T> values = read_array<T>(parent, name, 2, dims);
  rows = static_cast<std::int64_t>(dims[0]);
  columns = static_cast<std::int64_t>(dims[1]);
  return values;
}
template void write_matrix<float>(const Handle&, const std::string&, std::span<const float>, std::int64_t,
                                  std::int64_t);
template void write_matrix<double>(const Handle&, const std::string&, std::span<const double>, std::int64_t,
                                   std::int64_t);
template std::vector<float> read_matrix<float>(const Handle&, const std::string&, std::int64_t&, std::int64_t&);
template std::vector<double> read_matrix<double>(const Handle&, const std::string&, std::int64_t&, std::int64_t&);
std::optional<ContiguousMatrix> contiguous_float_matrix(const Handle& parent, const std::string& name) {
  const Handle dataset(check_in(H5Dopen2(parent.id(), name.c_str(), H5P_DEFAULT), parent.id(), "opening dataset '" + name + "'"));
  const Handle space(check(H5Dget_space(dataset.id()), "reading the shape of '" + name + "'"));
  const Handle type(check(H5Dget_type(dataset.id()), "reading the type of '" + name + "'"));
  const Handle plist(check(H5Dget_create_plist(dataset.id()), "reading the layout of '" + name + "'"));
  if (H5Sget_simple_extent_ndims(space.id()) != 2 || H5Tequal(type.id(), H5T_IEEE_F32LE) <= 0 ||
      H5Pget_layout(plist.id()) != H5D_CONTIGUOUS || H5Pget_nfilters(plist.id()) != 0 ||
      H5Pget_external_count(plist.id()) != 0)
    return std::nullopt;
  const haddr_t offset = H5Dget_offset(dataset.id());
  if (offset == HADDR_UNDEF) return std::nullopt;
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space.id(), dims, nullptr);
  return ContiguousMatrix{static_cast<std::uint64_t>(offset), static_cast<std::int64_t>(dims[0]),
                          static_cast<std::int64_t>(dims[1])};
}

void write_text(const Handle& parent, const std::string& name, const std::string& text) {
  const Handle type = string_type();
  const Handle space = scalar_space();
  const Handle dataset(
      check(H5Dcreate2(parent.id(), name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            "creating dataset '" + name + "'"));
  const char* data = text.c_str();
  const Handle transfer = detail::conversion_transfer(1, 0);
  check_status(H5Dwrite(dataset.id(), type.id(), H5S_ALL, H5S_ALL, transfer.id(), &data), "writing '" + name + "'");
}

std::string read_text(const Handle& parent, const std::string& name) {
  const Handle dataset(check_in(H5Dopen2(parent.id(), name.c_str(), H5P_DEFAULT), parent.id(), "opening dataset '" + name + "'"));
  const Handle type = string_type();
  char* data = nullptr;
  check_status(H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &data), "reading '" + name + "'");
  std::string text = data ? data : "";
  const Handle space = scalar_space();
  H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, &data);
  return text;
}

}  // namespace glimpse::h5
