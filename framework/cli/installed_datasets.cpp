// Installed datasets: write_dataset_file with the origin's attributes, and a listing read from those attributes.
#include "installed_datasets.hpp"

#include <algorithm>
#include <cstdio>
#include <span>

#include "glimpse/error.hpp"
#include "hdf5.hpp"

namespace glimpse {
namespace fs = std::filesystem;

namespace {
// FNV-1a over the bytes given.
class Fnv {
 public:
  void add(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      h_ ^= p[i];
      h_ *= 0x100000001b3ULL;
    }
  }
  template <class T>
  void add_all(std::span<const T> values) {
    add(values.data(), values.size_bytes());
  }
  std::string hex() const {
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h_));
    return buffer;
  }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};
}  // namespace

std::string dataset_checksum(const Dataset& data) {
  Fnv h;
  const std::int64_t shape[3] = {data.size(), data.dim(), data.num_classes()};
  h.add(shape, sizeof shape);
  h.add_all(data.labels());
  if (data.is_dense()) {
    for (std::int64_t i = 0; i < data.size(); ++i) h.add_all(data.row(i).stored_values());
  } else {
    h.add_all(data.row_offsets());
    h.add_all(data.column_indices());
    for (std::int64_t i = 0; i < data.size(); ++i) h.add_all(data.row(i).stored_values());
  }
  return h.hex();
}

void save_cached_dataset(const Dataset& data, const std::string& name, const DatasetOrigin& origin) {
  write_dataset_file(cached_dataset_file(name), data,
                     {{"name", name},
                      {"checksum", dataset_checksum(data)},
                      {"package", origin.package},
                      {"package_version", origin.package_version},
                      {"files", origin.files},
                      {"description", origin.description}});
}

std::vector<CachedDatasetInfo> list_cached_datasets() {
  std::vector<CachedDatasetInfo> result;
  const fs::path dir = dataset_cache_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return result;
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(dir, ec))
    if (item.path().extension() == ".h5") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      const h5::Handle f = h5::open_file(file, false);
      CachedDatasetInfo info;
      info.name = h5::read_string_attribute(f, "name");
      info.n = h5::read_int_attribute(f, "n");
      info.d = static_cast<std::int32_t>(h5::read_int_attribute(f, "d"));
      info.k = static_cast<std::int32_t>(h5::read_int_attribute(f, "K"));
      info.dense = h5::read_string_attribute(f, "layout") == "dense";
      info.checksum = h5::read_string_attribute(f, "checksum");
      info.origin = {h5::read_string_attribute(f, "package"), h5::read_string_attribute(f, "package_version"),
                     h5::read_string_attribute(f, "files"), h5::read_string_attribute(f, "description")};
      info.file = file;
      result.push_back(std::move(info));
    } catch (const Error&) {
      // not a dataset file: ignore it
    }
  }
  return result;
}

}  // namespace glimpse
