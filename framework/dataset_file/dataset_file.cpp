// Dataset cache files: /X (n x d float32) or /indptr, /indices, /values (CSR); /y (int32, 1..K); metadata
// as root attributes.
#include "glimpse/dataset_file.hpp"

#include <algorithm>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "cache_folder.hpp"
#include "glimpse/error.hpp"
#include "hdf5.hpp"

namespace glimpse {
namespace fs = std::filesystem;

fs::path dataset_cache_dir() {
  if (const char* data = std::getenv("GLIMPSE_DATA"); data && *data) return data;
  const fs::path cache = user_cache_folder();
  return (cache.empty() ? fs::path("/tmp/.cache/glimpse") : cache) / "datasets";
}

fs::path cached_dataset_file(const std::string& name) { return dataset_cache_dir() / (name + ".h5"); }

std::string file_identity(const fs::path& file) {
  struct stat info {};
  const fs::path absolute = fs::absolute(file).lexically_normal();
  if (::stat(absolute.c_str(), &info) != 0) return absolute.string() + " missing";
  return absolute.string() + " size " + std::to_string(info.st_size) + " modified " +
         std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
}

namespace {

std::string join_lines(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : "\n") + item;
  return out;
}
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    items.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return items;
}
}  // namespace

void write_dataset_file(const fs::path& file, const Dataset& data,
                        const std::vector<std::pair<std::string, std::string>>& attributes) {
  fs::create_directories(file.parent_path());
  // Unique per process: ranks or processes of one sweep may write the same file at once; the last rename wins.
  const fs::path temporary(file.string() + "." + std::to_string(::getpid()) + ".tmp");
  {
    const h5::Handle f = h5::create_file(temporary);
    h5::write_attribute(f, "format", std::string("glimpse-dataset"));
    h5::write_attribute(f, "format_version", std::int64_t{1});
    h5::write_attribute(f, "n", data.size());
    h5::write_attribute(f, "d", std::int64_t{data.dim()});
    h5::write_attribute(f, "K", std::int64_t{data.num_classes()});
    h5::write_attribute(f, "layout", std::string(data.is_dense() ? "dense" : "csr"));
    h5::write_attribute(f, "class_names", join_lines(data.class_names));
    if (!data.notes.empty()) h5::write_attribute(f, "notes", join_lines(data.notes));
    for (const auto& [name, value] : attributes) h5::write_attribute(f, name, value);
    std::vector<std::int32_t> y(data.labels().begin(), data.labels().end());
    for (auto& label : y) ++label;  // 1..K on disk, as in every data file
    h5::write_vector<std::int32_t>(f, "y", y);
    if (!data.class_probabilities.empty()) h5::write_vector<double>(f, "class_probabilities", data.class_probabilities);
    const auto values = data.stored_features();
    if (data.is_dense()) {
      h5::write_matrix<float>(f, "X", values, data.size(), data.dim());
    } else {
      h5::write_vector<std::int64_t>(f, "indptr", data.row_offsets());
      h5::write_vector<std::int32_t>(f, "indices", data.column_indices());
      h5::write_vector<float>(f, "values", values);
    }
  }
  fs::rename(temporary, file);
}

namespace {
// A contiguous float32 matrix mapped read-only from its file: loading then copies nothing (the page cache's pages
// become the rows) and no zero-filled buffer is touched first. Installing writes a new file and renames it over the
// old one, so a mapping stays valid while a run uses it.
struct MappedMatrix {
  std::shared_ptr<const void> owner;
  const Feature* values = nullptr;
  std::int64_t rows = 0, columns = 0;
};

std::optional<MappedMatrix> map_matrix(const fs::path& file, const h5::Handle& f, const std::string& name) {
  const auto where = h5::contiguous_float_matrix(f, name);
  // Only aligned rows: an older cache file may place X at any byte, and a misaligned float is read, not mapped.
  if (!where || where->rows == 0 || where->columns == 0 || where->offset % alignof(Feature) != 0) return std::nullopt;
  const std::uint64_t bytes = static_cast<std::uint64_t>(where->rows) * where->columns * sizeof(Feature);
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t start = where->offset / page * page;
  void* base = MAP_FAILED;
  if (::fstat(fd, &info) == 0 && where->offset + bytes <= static_cast<std::uint64_t>(info.st_size))
    base = ::mmap(nullptr, where->offset + bytes - start, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
                  static_cast<off_t>(start));
  ::close(fd);
  if (base == MAP_FAILED) return std::nullopt;
  const std::size_t length = where->offset + bytes - start;
  std::shared_ptr<const void> owner(base, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
  const auto* values = reinterpret_cast<const Feature*>(static_cast<const char*>(base) + (where->offset - start));
  return MappedMatrix{std::move(owner), values, where->rows, where->columns};
}
}  // namespace

namespace {
// Levenshtein distance, for a name that is probably a typo of an installed one.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

Dataset load_cached_dataset(const std::string& name, const std::string& where) {
  const fs::path file = cached_dataset_file(name);
  if (!fs::exists(file)) {
    std::string closest;
    std::size_t best = 3;  // a typo: at most two edits away
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(file.parent_path(), ec))
      if (entry.path().extension() == ".h5")
        if (const std::size_t d = edit_distance(name, entry.path().stem().string()); d < best)
          best = d, closest = entry.path().stem().string();
    if (!closest.empty())
      throw Error(where, "dataset '" + name + "' is not installed; did you mean '" + closest + "' (installed)?");
    throw Error(where, "dataset '" + name + "' is not installed (no " + file.string() +
                           "); 'glimpse datasets list' shows the catalog, and 'glimpse datasets install NAME' installs "
                           "one of it");
  }
  return read_dataset_file(file, "; reinstall it with: glimpse datasets install " + name);
}

Dataset read_dataset_file(const fs::path& file, const std::string& reinstall) {
  const h5::Handle f = h5::open_file(file, false);
  if (!h5::has_attribute(f, "format") || h5::read_string_attribute(f, "format") != "glimpse-dataset")
    throw Error(file.string(), "is not a glimpse dataset file" + reinstall);
  // The file is checked as any input is: a damaged or hand-made cache must be refused, not trusted.
  const std::int64_t k = h5::read_int_attribute(f, "K"), d = h5::read_int_attribute(f, "d");
  std::vector<std::string> class_names = split_lines(h5::read_string_attribute(f, "class_names"));
  if (k < 2 || k != static_cast<std::int64_t>(class_names.size()))
    throw Error(file.string(), "K = " + std::to_string(k) + " with " + std::to_string(class_names.size()) +
                                   " class names; expected K >= 2 names, one per class" + reinstall);
  if (d < 1 || d > std::numeric_limits<std::int32_t>::max())
    throw Error(file.string(), "d = " + std::to_string(d) + " is not a feature count" + reinstall);
  std::vector<std::int32_t> y = h5::read_vector<std::int32_t>(f, "y");
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (y[i] < 1 || y[i] > k)
      throw Error(file.string(), "row " + std::to_string(i + 1) + ": label " + std::to_string(y[i]) + " outside 1.." +
                                     std::to_string(k) + reinstall);
    --y[i];
  }
  Dataset data;
  if (h5::read_string_attribute(f, "layout") == "dense") {
    if (auto mapped = map_matrix(file, f, "X")) {
      if (mapped->columns != d || mapped->rows != static_cast<std::int64_t>(y.size()))
        throw Error(file.string(), "X is " + std::to_string(mapped->rows) + " x " + std::to_string(mapped->columns) +
                                       " for " + std::to_string(y.size()) + " labels and d = " + std::to_string(d) +
                                       reinstall);
      data = Dataset::dense_view(mapped->rows, static_cast<std::int32_t>(d), mapped->owner, mapped->values,
                                 std::move(y), static_cast<std::int32_t>(k));
    } else {
      std::int64_t rows = 0, columns = 0;
      auto values = h5::read_matrix<float>(f, "X", rows, columns);
      if (columns != d)
        throw Error(file.string(),
                    "X has " + std::to_string(columns) + " columns, d = " + std::to_string(d) + reinstall);
      data = Dataset::dense(rows, static_cast<std::int32_t>(d), std::move(values), std::move(y),
                            static_cast<std::int32_t>(k));
    }
  } else {
    try {
      data = Dataset::sparse(static_cast<std::int32_t>(d), h5::read_vector<std::int64_t>(f, "indptr"),
                             h5::read_vector<std::int32_t>(f, "indices"), h5::read_vector<float>(f, "values"),
                             std::move(y), static_cast<std::int32_t>(k));
    } catch (const Error& bad) {
      throw Error(file.string(), bad.what() + reinstall);
    }
  }
  data.class_names = std::move(class_names);
  if (h5::has_attribute(f, "notes")) data.notes = split_lines(h5::read_string_attribute(f, "notes"));
  if (h5::exists(f, "class_probabilities")) {
    data.class_probabilities = h5::read_vector<double>(f, "class_probabilities");
    if (data.class_probabilities.size() != static_cast<std::size_t>(data.size() * k))
      throw Error(file.string(), "class_probabilities holds " + std::to_string(data.class_probabilities.size()) +
                                     " values, expected n * K" + reinstall);
  }
  return data;
}

}  // namespace glimpse
