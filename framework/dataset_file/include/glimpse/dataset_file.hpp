// glimpse's own dataset file (HDF5), the form of installed datasets (`glimpse datasets install`) and of the prepared
// cache's entries, and where they live: $GLIMPSE_DATA, else $XDG_CACHE_HOME/glimpse/datasets, else
// ~/.cache/glimpse/datasets. The `installed` data source loads installed ones by name ({"name": "vehicle"}).
// Not part of the core, which reads no dataset file itself: a library beside it (glimpse::dataset_file) that the
// CLI and the `installed` data source link.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/dataset.hpp"

namespace glimpse {

std::filesystem::path dataset_cache_dir();
std::filesystem::path cached_dataset_file(const std::string& name);
// "PATH size S modified T" (nanoseconds), or "PATH missing": what keys a cache entry by a file's contents.
std::string file_identity(const std::filesystem::path& file);

// A glimpse dataset file: rows, labels, class names, notes and p(y|x) as read_dataset_file gives them back, with
// `attributes` (text) beside. Written atomically (a temporary file, then rename).
void write_dataset_file(const std::filesystem::path& file, const Dataset& data,
                        const std::vector<std::pair<std::string, std::string>>& attributes);
// Refuses a file that is not a consistent dataset file, naming it; `fix` ends each complaint (how to get a good one).
Dataset read_dataset_file(const std::filesystem::path& file, const std::string& fix);

// The installed dataset `name`. Throws Error naming `where` and saying how to install it when it is not installed.
Dataset load_cached_dataset(const std::string& name, const std::string& where);

}  // namespace glimpse
