// The catalog of real datasets that Debian packages carry (datasets/catalog.json), and their installation:
// fetch the package (apt-get download + dpkg-deb -x, no dependencies installed), convert R .rda files with
// Debian's python3-rdata, read with a reader plugin, select rows, check against the catalog's recorded
// n, d, K, class counts and checksum, and save to the cache.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "plugin_registry.hpp"

namespace glimpse {

struct CatalogEntry {
  std::string name, description, note;
  std::string package, package_version;
  std::vector<std::string> files;     // absolute paths as installed by the package
  std::string rda_object, rda_label;  // set when the files are R data frames (.rda)
  std::string reader;                 // data-source plugin reading each (converted) file
  std::vector<std::pair<std::string, std::string>> reader_params;
  std::vector<std::string> file_params;      // reader parameters receiving the files (one name: one read per file)
  std::int64_t first_row = 0, last_row = 0;  // 1-based, inclusive; 0: all rows
  // What the conversion must give.
  std::int64_t n = 0;
  std::int32_t d = 0, k = 0;
  std::vector<std::int64_t> class_counts;
  std::string checksum;
};

std::vector<CatalogEntry> parse_catalog(const std::string& json, const std::string& where);
// The catalog compiled into this glimpse.
const std::vector<CatalogEntry>& builtin_catalog();

struct InstallReport {
  std::vector<std::string> installed, already_installed;
};

// Installs the named datasets (all of the catalog when `names` is empty). Throws Error on the first
// failure, saying what differs or which command failed.
InstallReport install_datasets(const std::vector<CatalogEntry>& catalog, const std::vector<std::string>& names,
                               const PluginRegistry& registry, std::ostream& log);

}  // namespace glimpse
