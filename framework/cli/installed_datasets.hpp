// The installed datasets as `glimpse datasets` sees them: saving one with its origin (the Debian package it came
// from), listing them, and the checksum and class counts an install checks against the catalog. Their file format is
// the core's (glimpse/dataset_file.hpp); a protocol loads them through the `installed` data source.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "glimpse/dataset_file.hpp"

namespace glimpse {

struct DatasetOrigin {
  std::string package, package_version, files, description;
};

struct CachedDatasetInfo {
  std::string name;
  std::int64_t n = 0;
  std::int32_t d = 0, k = 0;
  bool dense = true;
  std::string checksum;
  DatasetOrigin origin;
  std::filesystem::path file;
};

// 16 hex digits over the shape, labels, values and sparse structure: identical data, identical checksum.
std::string dataset_checksum(const Dataset& data);

// An installed dataset, by name (write_dataset_file with its origin).
void save_cached_dataset(const Dataset& data, const std::string& name, const DatasetOrigin& origin);
std::vector<CachedDatasetInfo> list_cached_datasets();

}  // namespace glimpse
