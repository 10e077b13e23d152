// Integer columns (a trace's per-round data): narrowed and deflated without the HDF5 library, so that a run's thread
// does it outside the library's lock; written under it, deflated chunks as they are (H5Dwrite_chunk).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <type_traits>

#include <zlib.h>

#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "hdf5_checks.hpp"

namespace glimpse::h5 {
using detail::check;
using detail::check_status;

namespace {
// `bytes` as a zlib stream (what HDF5's deflate filter stores and inflates), at level 1 with zlib's `strategy`.
std::vector<unsigned char> deflated(std::span<const unsigned char> bytes, int strategy) {
  z_stream stream{};
  if (deflateInit2(&stream, 1, Z_DEFLATED, 15, 8, strategy) != Z_OK) throw Error("zlib: cannot start deflating");
  std::vector<unsigned char> packed(deflateBound(&stream, static_cast<uLong>(bytes.size())));
  stream.next_in = const_cast<unsigned char*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = packed.data();
  stream.avail_out = static_cast<uInt>(packed.size());
  const int status = deflate(&stream, Z_FINISH);
  packed.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw Error("zlib: cannot deflate " + std::to_string(bytes.size()) + " bytes");
  return packed;
}

// How a one-byte flag column (a trace's `correct`, `queried`) is best deflated, judged on its first 8 Ki values:
// Huffman codes alone (a 0/1 column in about 1.3 bits a value, at 1.5x the speed of zlib's default) unless runs
// make run-length matches at least 1.5x smaller (a rarely queried `queried`); nullopt when neither shrinks it to a
// quarter (issue #31: on such columns zlib's default strategy was both slower and larger than either).
std::optional<int> flag_strategy(std::span<const unsigned char> stored) {
  const auto sample = stored.first(std::min<std::size_t>(stored.size(), 8192));
  const std::size_t huffman = deflated(sample, Z_HUFFMAN_ONLY).size(), runs = deflated(sample, Z_RLE).size();
  if (4 * std::min(huffman, runs) > sample.size()) return std::nullopt;
  return 2 * runs < 3 * huffman ? Z_RLE : Z_HUFFMAN_ONLY;
}

// The values in `Narrow`, as the little-endian bytes HDF5 stores; a loop the compiler vectorises (HDF5's own
// conversion goes value by value with range checks: most of a per-round trace's write time was H5T__conv_int_schar
// and its kin).
template <class Narrow, class T>
std::vector<unsigned char> narrowed_bytes(std::span<const T> values) {
  static_assert(std::endian::native == std::endian::little);
  std::vector<unsigned char> bytes(values.size() * sizeof(Narrow));
  auto* out = reinterpret_cast<Narrow*>(bytes.data());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<Narrow>(values[i]);
  return bytes;
}

// One chunk as HDF5's filter pipeline stores it: shuffled when its values are wider than a byte (H5Z shuffle:
// byte j of value i goes to j * n + i), then deflated (H5Z deflate: a zlib stream, whatever zlib's strategy).
std::vector<unsigned char> filtered_chunk(std::span<const unsigned char> chunk, std::size_t width, int strategy) {
  std::vector<unsigned char> shuffled;
  if (width > 1) {
    const std::size_t n = chunk.size() / width;
    shuffled.resize(chunk.size());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < width; ++j) shuffled[j * n + i] = chunk[i * width + j];
    chunk = shuffled;
  }
  return deflated(chunk, strategy);
}

hid_t stored_type(const IntegerColumn& c) {
  switch (c.width) {
    case 1: return c.is_signed ? H5T_STD_I8LE : H5T_STD_U8LE;
    case 2: return H5T_STD_I16LE;
    case 4: return H5T_STD_I32LE;
    default: return H5T_STD_I64LE;
  }
}
hid_t memory_type(const IntegerColumn& c) {
  switch (c.width) {
    case 1: return c.is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8;
    case 2: return H5T_NATIVE_INT16;
    case 4: return H5T_NATIVE_INT32;
    default: return H5T_NATIVE_INT64;
  }
}
}  // namespace

template <class T>
IntegerColumn encode_integers(std::string name, std::span<const T> values, Deflate deflate) {
  IntegerColumn column;
  column.name = std::move(name);
  column.size = static_cast<std::int64_t>(values.size());
  column.is_signed = std::is_signed_v<T>;
  column.width = sizeof(T);
  // A plain loop (std::minmax_element's tie rules keep it from vectorising).
  T low = values.empty() ? T{} : values[0], high = low;
  for (const T v : values) low = std::min(low, v), high = std::max(high, v);
  // Signed values stay signed, so that a reader's y - predicted cannot wrap around.
  if constexpr (std::is_signed_v<T>) {
    const auto fits = [&](auto type_min, auto type_max) {
      return static_cast<std::int64_t>(low) >= static_cast<std::int64_t>(type_min) &&
             static_cast<std::int64_t>(high) <= static_cast<std::int64_t>(type_max);
    };
    column.width = fits(INT8_MIN, INT8_MAX) ? 1 : fits(INT16_MIN, INT16_MAX) ? 2 : fits(INT32_MIN, INT32_MAX) ? 4 : 8;
  }
  if (values.size() >= 64 && low == high && deflate != Deflate::always) {
    column.constant = static_cast<std::int64_t>(low);
    return column;
  }
  std::vector<unsigned char> stored;
  const std::span<const unsigned char> as_given(reinterpret_cast<const unsigned char*>(values.data()),
                                                values.size() * sizeof(T));
  if (column.width != sizeof(T)) {
    switch (column.width) {
      case 1: stored = narrowed_bytes<std::int8_t>(values); break;
      case 2: stored = narrowed_bytes<std::int16_t>(values); break;
      default: stored = narrowed_bytes<std::int32_t>(values); break;
    }
  }
  const std::span<const unsigned char> bytes = column.width == sizeof(T) ? as_given : std::span(stored);
  // `flags` tries only unsigned (0/1 flag) columns: deflate shrinks a trace's `correct` six-fold; labels and rows
  // it shrank 4x at best (predicted labels on satimage) for a quarter of a cheap sweep's time (issue #31).
  std::optional<int> strategy;
  if (values.size() >= 64 && deflate == Deflate::always) strategy = Z_DEFAULT_STRATEGY;
  if (values.size() >= 64 && deflate == Deflate::flags && !column.is_signed && column.width == 1)
    strategy = flag_strategy(bytes);
  if (!strategy) {
    column.narrowed = std::move(stored);
    column.raw = column.width == sizeof(T) ? as_given : std::span<const unsigned char>(column.narrowed);
    return column;
  }
  // Whole chunks, the last padded with zeros as HDF5 pads an edge chunk.
  const std::size_t chunk_bytes = static_cast<std::size_t>(column.chunk_values()) * column.width;
  std::vector<unsigned char> padded;
  for (std::size_t at = 0; at < bytes.size(); at += chunk_bytes) {
    auto chunk = bytes.subspan(at, std::min(chunk_bytes, bytes.size() - at));
    if (chunk.size() < chunk_bytes) {
      padded.assign(chunk.begin(), chunk.end());
      padded.resize(chunk_bytes, 0);
      chunk = padded;
    }
    column.deflated_chunks.push_back(filtered_chunk(chunk, column.width, *strategy));
  }
  return column;
}
template IntegerColumn encode_integers<std::int32_t>(std::string, std::span<const std::int32_t>, Deflate);
template IntegerColumn encode_integers<std::int64_t>(std::string, std::span<const std::int64_t>, Deflate);
template IntegerColumn encode_integers<std::uint8_t>(std::string, std::span<const std::uint8_t>, Deflate);
template IntegerColumn encode_integers<std::int8_t>(std::string, std::span<const std::int8_t>, Deflate);
template IntegerColumn encode_integers<std::int16_t>(std::string, std::span<const std::int16_t>, Deflate);

void write_column(const Handle& parent, const IntegerColumn& column) {
  const auto size = static_cast<hsize_t>(column.size);
  const Handle space(check(H5Screate_simple(1, &size, nullptr), "creating a dataspace"));
  const Handle properties(check(H5Pcreate(H5P_DATASET_CREATE), "creating dataset properties"));
  const auto chunk = static_cast<hsize_t>(column.chunk_values());
  // Undeflated columns are stored in one piece (contiguous): HDF5 writes them straight from `raw` to the file, where
  // chunks went through its chunk cache first, a copy of every byte on the writer thread (issue #57).
  if (!column.deflated_chunks.empty()) check_status(H5Pset_chunk(properties.id(), 1, &chunk), "setting the chunk size");
  // A column of one value is stored as the dataset's fill value and no data at all (nothing written, so no storage
  // allocated): readers get the value back, and nothing is compressed or copied (a trace's `queried` when every
  // round asks).
  if (column.constant)
    check_status(H5Pset_fill_value(properties.id(), H5T_NATIVE_INT64, &*column.constant), "setting a fill value");
  if (!column.deflated_chunks.empty()) {
    if (column.width > 1) check_status(H5Pset_shuffle(properties.id()), "enabling shuffle");
    // Level 1: on per-round arrays level 4 made the file 3% smaller for 1.6x the compression time.
    check_status(H5Pset_deflate(properties.id(), 1), "enabling deflate");
  }
  const Handle dataset(check(H5Dcreate2(parent.id(), column.name.c_str(), stored_type(column), space.id(),
                                        H5P_DEFAULT, properties.id(), H5P_DEFAULT),
                             "creating dataset '" + column.name + "'"));
  if (!column.raw.empty())
    check_status(H5Dwrite(dataset.id(), memory_type(column), H5S_ALL, H5S_ALL, H5P_DEFAULT, column.raw.data()),
                 "writing dataset '" + column.name + "'");
  // Chunks the run's thread deflated already (encode_integers), written as they are.
  for (std::size_t i = 0; i < column.deflated_chunks.size(); ++i) {
    const hsize_t offset = i * chunk;
    const auto& bytes = column.deflated_chunks[i];
    check_status(H5Dwrite_chunk(dataset.id(), H5P_DEFAULT, 0, &offset, bytes.size(), bytes.data()),
                 "writing a chunk of dataset '" + column.name + "'");
  }
}

template <class T>
void write_integers(const Handle& parent, const std::string& name, std::span<const T> values, Deflate deflate) {
  write_column(parent, encode_integers(name, values, deflate));
}
template void write_integers<std::int32_t>(const Handle&, const std::string&, std::span<const std::int32_t>, Deflate);
template void write_integers<std::int64_t>(const Handle&, const std::string&, std::span<const std::int64_t>, Deflate);
template void write_integers<std::uint8_t>(const Handle&, const std::string&, std::span<const std::uint8_t>, Deflate);

}  // namespace glimpse::h5
