// The plugin index: which plugin each library on the plugin path defines, kept between runs, so that a run loads only
// the libraries its protocol names. Loading all of them (about 70, one of them starting Python's library) was most of
// a small run's time. An entry holds while its library's size and modification time are unchanged.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace glimpse {

struct PluginIndexEntry {
  std::uintmax_t size = 0;
  std::int64_t modified = 0;  // the library's modification time, nanoseconds since the epoch
  std::string name;           // the plugin it defines
  bool serves_dataset_names = false;
};

class PluginIndex {
 public:
  // $GLIMPSE_PLUGIN_INDEX, else $XDG_CACHE_HOME/glimpse/plugin-index, else $HOME/.cache/glimpse/plugin-index; empty
  // (nothing kept: every library loads, as without an index) when GLIMPSE_PLUGIN_INDEX is "off" or no home is set.
  static std::filesystem::path default_file();

  // Reads `file`; one that is missing, unreadable or written by another plugin API version is an empty index.
  explicit PluginIndex(std::filesystem::path file);

  // `library`'s entry (a canonical path) when the file still has the size and time it had; else nothing.
  std::optional<PluginIndexEntry> lookup(const std::filesystem::path& library) const;
  // Records what `library` defines, with its size and time now; false when the file cannot be stat'ed.
  bool learn(const std::filesystem::path& library, std::string name, bool serves_dataset_names);
  // Writes the index whole (a temporary file renamed over it) when it learnt anything, without the libraries no
  // longer there. A failure is ignored: the index only saves time, and the next run learns again.
  void save() const;

 private:
  std::filesystem::path file_;
  std::map<std::filesystem::path, PluginIndexEntry> entries_;
  bool changed_ = false;
};

}  // namespace glimpse
