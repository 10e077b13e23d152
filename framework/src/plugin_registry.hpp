// Finds, loads and checks plugin libraries; hands out their descriptions and factories by name.
#pragma once

#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "glimpse/plugin.hpp"
#include "param_resolution.hpp"

namespace glimpse {

struct LoadedPlugin {
  const PluginSpec* spec = nullptr;
  const PluginEntry* entry = nullptr;
  std::filesystem::path file;
  std::string member;  // a family member's ARGUMENT (its name is "FAMILY:ARGUMENT"); empty for other plugins

  // Creates an object from resolved parameters. Throws Error naming the plugin when the factory throws.
  std::unique_ptr<PluginObject> create(const ParamValues& params) const;
};

class PluginRegistry {
 public:
  // Where plugins are looked for: each entry of GLIMPSE_PLUGIN_PATH (':'-separated), then the folder
  // LIBDIR/glimpse/plugins (lib/glimpse/plugins by default) beside the running executable's bin/ (build tree and
  // install tree alike).
  static std::vector<std::filesystem::path> default_search_path();
  // A registry of the libraries on default_search_path(), each loaded when first needed: the plugin index
  // (plugin_index.hpp) says which library defines a name, so a lookup loads only the libraries defining it; a
  // library the index does not know (new, changed, or refused last time) loads now, and the index learns it. Listing
  // every plugin, or an error message that lists the valid names, loads every library first, so what is found or
  // refused (duplicates and load problems included) is what loading them all would give.
  static PluginRegistry discover();

  // Loads every *.so in the folder (not recursive), in name order. A library that cannot be used is
  // recorded in problems() and skipped; a missing folder is ignored.
  void load_directory(const std::filesystem::path& folder);
  // Loads one library; throws Error saying why it was refused (not loadable, no entry point, other API
  // version, invalid description).
  void load_file(const std::filesystem::path& file);

  // The plugin of that name and kind. Throws Error naming `where` and listing the valid names of the kind
  // (and any load problems) when there is none, or naming both files when two libraries define it.
  // A family's member ("FAMILY:ARGUMENT") is described by its family the first time it is named; get throws the
  // family's reason when ARGUMENT names no member, find returns null.
  const LoadedPlugin& get(std::string_view name, PluginKind kind, const std::string& where) const;
  const LoadedPlugin* find(std::string_view name) const noexcept;
  // The member "FAMILY:ARGUMENT", described now if it is new; Error with the family's reason when ARGUMENT names no
  // member; null when no loaded family has the name's prefix.
  const LoadedPlugin* member(std::string_view name) const;
  // The data source serving dataset entries written by name (PluginSpec::serves_dataset_names). Throws Error naming
  // `where` when no loaded plugin does, or two do.
  const LoadedPlugin& dataset_name_server(const std::string& where) const;
  // `plugin`'s parameters (resolve_params over its declaration), and for each learner parameter the learner it names:
  // that learner's parameters, given under "NAME.PARAM" and resolved the same way (so wrappers nest), listed among
  // these values too (so run metadata and stream keys name them), and a factory that creates it. Path parameters
  // resolve against `base_dir`.
  ParamValues resolve(const LoadedPlugin& plugin, const GivenParams& given, const ProblemShape* shape,
                      const std::string& where, const std::filesystem::path& base_dir = {},
                      const std::string& prefix = "") const;
  // Every usable plugin, sorted by kind then name.
  std::vector<const LoadedPlugin*> plugins() const;
  // Why libraries were refused (every library loaded first).
  std::vector<std::string> problems() const;

 private:
  // A library discover() found and the index knows, not loaded yet.
  struct PendingLibrary {
    std::filesystem::path file;
    std::string name;  // the plugin it defines, by the index
    bool serves_dataset_names = false;
  };
  // Loads one library (nothing when that file is loaded already); its description, or null when it was loaded
  // already or its name was taken (recorded as a duplicate).
  const PluginSpec* load_library(const std::filesystem::path& file) const;
  // Loads the pending libraries `wanted` picks, in search order; one refused is recorded in problems_.
  template <class Wanted>
  void load_pending(Wanted wanted) const;
  // Loads the pending libraries defining `name`, or the family that "FAMILY:ARGUMENT" belongs to.
  void load_named(std::string_view name) const;
  const LoadedPlugin* find_loaded(std::string_view name) const noexcept;

  // Loaded lazily by const lookups, so mutable; a deque, so that what get() and find() returned stays valid.
  mutable std::deque<LoadedPlugin> plugins_;
  mutable std::vector<std::pair<std::string, std::filesystem::path>> duplicates_;  // name, second file
  mutable std::vector<std::filesystem::path> loaded_files_;                        // canonical paths
  mutable std::vector<std::string> problems_;
  mutable std::vector<PendingLibrary> pending_;
  mutable std::unique_ptr<std::recursive_mutex> mutex_ = std::make_unique<std::recursive_mutex>();
  // Members described so far (deques: what find() returned stays valid as they grow).
  mutable std::deque<PluginSpec> member_specs_;
  mutable std::deque<LoadedPlugin> members_;
  mutable std::unique_ptr<std::mutex> members_mutex_ = std::make_unique<std::mutex>();
};

}  // namespace glimpse
