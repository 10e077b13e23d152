#include "prepared_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <tuple>
#include <vector>

#include "glimpse/dataset_file.hpp"
#include "glimpse/random.hpp"
#include "hdf5.hpp"
#include "plugin_registry.hpp"

namespace glimpse {
namespace fs = std::filesystem;

namespace {
enum class Mode { off, automatic, always };

Mode cache_mode() {
  const char* mode = std::getenv("GLIMPSE_PREPARED_CACHE");
  if (!mode || !*mode || std::string(mode) == "auto") return Mode::automatic;
  if (std::string(mode) == "always") return Mode::always;
  return Mode::off;  // "off", or anything unknown: never write where the user did not expect it
}

std::string plugin_identity(const PluginUse& use) {
  std::string text = use.name() + " revision " + std::to_string(use.plugin->spec->revision) + " from " +
                     file_identity(use.plugin->file) + "; defaults";
  for (const auto& p : use.plugin->spec->params) text += " " + p.name + "=" + p.default_value;
  return text;
}

// A transform's parameters as the protocol wrote them; a file a path parameter names enters with its identity.
std::string written_params(const PluginUse& use) {
  std::string text = "; params";
  for (const auto& p : use.params) {
    text += " " + p.name + "=" + p.text;
    const auto& declared = use.plugin->spec->params;
    const auto spec =
        std::find_if(declared.begin(), declared.end(), [&](const ParamSpec& d) { return d.name == p.name; });
    if (spec != declared.end() && spec->type == ParamType::path && !p.text.empty()) {
      const fs::path named(p.text);
      text += " (" + file_identity(named.is_absolute() ? named : use.base_dir / named) + ")";
    }
  }
  for (const auto& [name, values] : use.grid) {
    text += " " + name + "=[";
    for (const auto& v : values) text += v.text + ",";
    text += "]";
  }
  return text;
}

// Keeps the folder within its budget (GLIMPSE_PREPARED_CACHE_MB, default 4096): the least recently used entries
// go first (a hit touches its file). Entries of files that no longer exist are never hit again and age out.
void trim_to_budget(const fs::path& folder, const fs::path& keep) {
  std::uintmax_t budget = std::uintmax_t{4096} << 20;
  if (const char* mb = std::getenv("GLIMPSE_PREPARED_CACHE_MB"); mb && *mb)
    budget = static_cast<std::uintmax_t>(std::strtoull(mb, nullptr, 10)) << 20;
  std::vector<std::tuple<fs::file_time_type, std::uintmax_t, fs::path>> entries;
  std::uintmax_t total = 0;
  std::error_code ignored;
  for (const auto& item : fs::directory_iterator(folder, ignored)) {
    if (item.path().extension() != ".h5") continue;
    const auto size = item.file_size(ignored);
    entries.emplace_back(item.last_write_time(ignored), size, item.path());
    total += size;
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& [when, size, file] : entries) {
    if (total <= budget) break;
    if (file == keep) continue;
    if (fs::remove(file, ignored)) total -= size;
  }
}

fs::path entry_file(const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.h5", static_cast<unsigned long long>(hash_name(key)));
  return dataset_cache_dir() / "prepared" / name;
}
}  // namespace

std::string DiskPreparationCache::key(const DatasetUse& use, const ParamValues& source_values, const DataSource& source,
                                      bool fits_on_split) const {
  std::string key = "glimpse " GLIMPSE_VERSION_STRING " prepared dataset\n";
  key += "source " + plugin_identity(use.source) + "; values " + source_values.to_json();
  for (const auto& p : use.source.plugin->spec->params)
    if (p.type == ParamType::path && !source_values.path(p.name).empty())
      key += "; " + p.name + " " + file_identity(source_values.path(p.name));
  if (const std::string identity = source.identity(); !identity.empty()) key += "; " + identity;
  key += "\n";
  for (const auto& transform : use.transforms)
    key += "transform " + plugin_identity(transform) + written_params(transform) + "\n";
  key += fits_on_split ? "fitted per split\n" : "fitted on all rows\n";
  return key;
}

std::optional<PreparedEntry> DiskPreparationCache::find(const std::string& key) {
  if (cache_mode() == Mode::off) return std::nullopt;
  const fs::path file = entry_file(key);
  std::error_code missing;
  if (!fs::exists(file, missing)) return std::nullopt;
  try {
    PreparedEntry entry;
    {
      const h5::Handle f = h5::open_file(file, false);
      if (h5::read_string_attribute(f, "preparation") != key) return std::nullopt;  // another key, same hash
      const auto number = [&](const std::string& name) { return std::stoll(h5::read_string_attribute(f, name)); };
      entry.raw_shape.n = number("raw_n");
      entry.raw_shape.d = static_cast<std::int32_t>(number("raw_d"));
      entry.raw_shape.K = static_cast<std::int32_t>(number("raw_K"));
      entry.raw_shape.sparse = number("raw_sparse") != 0;
      entry.transforms_applied = static_cast<std::size_t>(number("transforms_applied"));
    }
    entry.data = read_dataset_file(file, "");
    std::error_code ignored;
    fs::last_write_time(file, fs::file_time_type::clock::now(), ignored);  // recently used
    return entry;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged or half-written by an older version: prepared afresh (and rewritten)
  }
}

void DiskPreparationCache::keep(const std::string& key, const Dataset& data, const ProblemShape& raw_shape,
                                std::size_t transforms_applied, double seconds) {
  const Mode mode = cache_mode();
  if (mode == Mode::off || (mode == Mode::automatic && seconds < 0.1)) return;
  const fs::path file = entry_file(key);
  try {
    write_dataset_file(file, data,
                       {{"preparation", key},
                        {"raw_n", std::to_string(raw_shape.n)},
                        {"raw_d", std::to_string(raw_shape.d)},
                        {"raw_K", std::to_string(raw_shape.K)},
                        {"raw_sparse", raw_shape.sparse ? "1" : "0"},
                        {"transforms_applied", std::to_string(transforms_applied)}});
    trim_to_budget(file.parent_path(), file);
  } catch (const std::exception& e) {
    std::cerr << "glimpse: warning: could not cache the prepared dataset in " + file.string() + ": " + e.what() + "\n";
  }
}

}  // namespace glimpse
