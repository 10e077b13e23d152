// The plugin index file: a header line naming the plugin API version, then one line per library:
// SIZE <tab> MODIFIED_NS <tab> SERVES_DATASET_NAMES (0/1) <tab> PLUGIN NAME <tab> CANONICAL PATH.
#include "plugin_index.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cache_folder.hpp"
#include "glimpse/plugin.hpp"

namespace glimpse {
namespace fs = std::filesystem;

namespace {

std::string header() { return "glimpse plugin index, plugin API " + std::to_string(GLIMPSE_PLUGIN_API_VERSION); }

std::optional<std::pair<std::uintmax_t, std::int64_t>> size_and_time(const fs::path& file) {
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) return std::nullopt;
  return std::pair(static_cast<std::uintmax_t>(status.st_size),
                   static_cast<std::int64_t>(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec);
}

}  // namespace

fs::path PluginIndex::default_file() {
  if (const char* set = std::getenv("GLIMPSE_PLUGIN_INDEX")) return std::string_view(set) == "off" ? fs::path() : set;
  const fs::path cache = user_cache_folder();
  return cache.empty() ? fs::path() : cache / "plugin-index";
}

PluginIndex::PluginIndex(fs::path file) : file_(std::move(file)) {
  if (file_.empty()) return;
  std::ifstream in(file_);
  std::string line;
  if (!std::getline(in, line) || line != header()) return;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    PluginIndexEntry entry;
    std::string serves, path;
    if (!(fields >> entry.size >> entry.modified >> serves >> entry.name) || (serves != "0" && serves != "1")) continue;
    fields.ignore(1);  // the tab before the path, which may hold spaces
    if (!std::getline(fields, path) || path.empty()) continue;
    entry.serves_dataset_names = serves == "1";
    entries_[path] = std::move(entry);
  }
}

std::optional<PluginIndexEntry> PluginIndex::lookup(const fs::path& library) const {
  const auto found = entries_.find(library);
  if (found == entries_.end()) return std::nullopt;
  const auto now = size_and_time(library);
  if (!now || now->first != found->second.size || now->second != found->second.modified) return std::nullopt;
  return found->second;
}

bool PluginIndex::learn(const fs::path& library, std::string name, bool serves_dataset_names) {
  const auto now = size_and_time(library);
  if (!now) return false;
  PluginIndexEntry entry{now->first, now->second, std::move(name), serves_dataset_names};
  auto& kept = entries_[library];
  if (kept.size != entry.size || kept.modified != entry.modified || kept.name != entry.name ||
      kept.serves_dataset_names != entry.serves_dataset_names) {
    kept = std::move(entry);
    changed_ = true;
  }
  return true;
}

void PluginIndex::save() const {
  if (file_.empty() || !changed_) return;
  std::error_code ignored;
  fs::create_directories(file_.parent_path(), ignored);
  // Per process, so that sweeps starting together never write one temporary file.
  const fs::path temporary = file_.string() + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << header() << '\n';
    for (const auto& [path, entry] : entries_) {
      if (!size_and_time(path)) continue;  // a library since removed (a test's temporary folder, say): forgotten
      out << entry.size << '\t' << entry.modified << '\t' << (entry.serves_dataset_names ? 1 : 0) << '\t'
          << entry.name << '\t' << path.string() << '\n';
    }
    if (!out.flush()) {
      fs::remove(temporary, ignored);
      return;
    }
  }
  std::error_code renamed;
  fs::rename(temporary, file_, renamed);
  if (renamed) fs::remove(temporary, ignored);
}

}  // namespace glimpse
