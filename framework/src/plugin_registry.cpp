// Plugin discovery and loading through Boost.DLL. Libraries are never unloaded: objects they created may
// outlive any registry, and dlclose is not safe while a sweep runs.
#include "plugin_registry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <regex>
#include <set>

#include "glimpse/error.hpp"
#include "param_resolution.hpp"
#include "plugin_index.hpp"

namespace glimpse {
namespace fs = std::filesystem;

namespace {

// Loaded libraries, kept for the life of the process.
std::deque<boost::dll::shared_library>& library_store() {
  static std::deque<boost::dll::shared_library> libraries;
  return libraries;
}
std::mutex& store_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string why_not_loadable(const fs::path& file) {
  // Boost.DLL clears dlerror(); ask the loader again for its explanation.
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle) {
    ::dlclose(handle);
    return "unknown reason";
  }
  const char* message = ::dlerror();
  return message ? message : "unknown reason";
}

void check_spec(const PluginSpec& spec, bool member = false) {
  static const std::regex name_pattern("[a-z][a-z0-9_]*");
  if (!member && !std::regex_match(spec.name, name_pattern))
    throw Error("its name '" + spec.name + "' is not lower_snake_case");
  if (spec.kind == PluginKind::learner && spec.accepts.empty() && !spec.batch)
    throw Error("learner '" + spec.name + "' declares no feedback kind it accepts (and is no batch learner)");
  if (spec.kind == PluginKind::oracle && spec.produces == FeedbackKind::none)
    throw Error("oracle '" + spec.name + "' declares no feedback kind it produces");
  if (spec.serves_dataset_names && (spec.kind != PluginKind::data_source ||
                                    std::none_of(spec.params.begin(), spec.params.end(), [](const ParamSpec& p) {
                                      return p.name == "dataset" && p.type == ParamType::text;
                                    })))
    throw Error("'" + spec.name + "' serves dataset names but is no data source with a text parameter 'dataset'");
  std::set<std::string> names;
  for (const auto& p : spec.params) {
    if (!names.insert(p.name).second) throw Error("parameter '" + p.name + "' is declared twice");
    if (p.type == ParamType::choice && p.choices.empty())
      throw Error("choice parameter '" + p.name + "' lists no choices");
    if (!p.required) {
      try {
        resolve_default(p, nullptr);
      } catch (const std::exception& e) {
        throw Error(e.what());
      }
    }
  }
}

// The folder's *.so files (not recursive), in name order; none when it is missing.
std::vector<fs::path> libraries_in(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return files;
  for (const auto& item : fs::directory_iterator(folder, ec))
    if (item.path().extension() == ".so") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::unique_ptr<PluginObject> LoadedPlugin::create(const ParamValues& params) const {
  try {
    if (!member.empty()) return std::unique_ptr<PluginObject>(entry->create_member(member, params));
    return std::unique_ptr<PluginObject>(entry->create(params));
  } catch (const Error& e) {
    throw Error(std::string(plugin_kind_name(spec->kind)) + " '" + spec->name + "'", e.what());
  } catch (const std::exception& e) {
    throw Error(std::string(plugin_kind_name(spec->kind)) + " '" + spec->name + "'",
                std::string("failed to create: ") + e.what());
  }
}

std::vector<fs::path> PluginRegistry::default_search_path() {
  std::vector<fs::path> path;
  if (const char* env = std::getenv("GLIMPSE_PLUGIN_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const auto item = rest.substr(0, colon);
      if (!item.empty()) path.emplace_back(item);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  const fs::path exe_dir(boost::dll::program_location().parent_path().string());
  // Where the build puts plugins and installs them, below the prefix: LIBDIR/glimpse/plugins (lib/glimpse/plugins
  // unless configured otherwise, e.g. lib/x86_64-linux-gnu/glimpse/plugins for a Debian prefix of /usr).
  path.push_back(exe_dir.parent_path() / GLIMPSE_PLUGIN_INSTALL_DIR);
  return path;
}

PluginRegistry PluginRegistry::discover() {
  PluginRegistry registry;
  PluginIndex index(PluginIndex::default_file());
  std::vector<fs::path> seen;  // canonical paths, so that a folder named twice on the path counts once
  for (const auto& folder : default_search_path()) {
    for (const auto& file : libraries_in(folder)) {
      std::error_code ec;
      const fs::path canonical = fs::weakly_canonical(file, ec);
      if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
      seen.push_back(canonical);
      if (const auto entry = index.lookup(canonical)) {
        registry.pending_.push_back({file, entry->name, entry->serves_dataset_names});
        continue;
      }
      try {  // not in the index: load it now, and learn what it defines
        if (const PluginSpec* spec = registry.load_library(file))
          index.learn(canonical, spec->name, spec->serves_dataset_names);
      } catch (const Error& e) {
        registry.problems_.emplace_back(e.what());
      }
    }
  }
  index.save();
  return registry;
}

void PluginRegistry::load_directory(const fs::path& folder) {
  for (const auto& file : libraries_in(folder)) {
    try {
      load_file(file);
    } catch (const Error& e) {
      problems_.emplace_back(e.what());
    }
  }
}

void PluginRegistry::load_file(const fs::path& file) { load_library(file); }

const PluginSpec* PluginRegistry::load_library(const fs::path& file) const {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(file, ec);
  std::lock_guard registry_lock(*mutex_);
  if (std::find(loaded_files_.begin(), loaded_files_.end(), canonical) != loaded_files_.end()) return nullptr;

  const std::string where = file.string();
  std::lock_guard lock(store_mutex());  // dlopen and the store are used from one thread at a time
  boost::dll::fs::error_code load_error;
  boost::dll::shared_library library(boost::dll::fs::path(file.string()), boost::dll::load_mode::rtld_now, load_error);
  if (load_error) throw Error(where, "cannot be loaded: " + why_not_loadable(file));
  if (!library.has(plugin_entry_symbol))
    throw Error(where, std::string("is not a glimpse plugin: it exports no '") + plugin_entry_symbol +
                           "' (use GLIMPSE_PLUGIN in one source file)");
  using EntryFunction = const PluginEntry*();
  const PluginEntry* entry = library.get<EntryFunction>(plugin_entry_symbol)();
  if (!entry) throw Error(where, "its entry point returned nothing");
  if (entry->api_version != GLIMPSE_PLUGIN_API_VERSION)
    throw Error(where, "was built for glimpse plugin API version " + std::to_string(entry->api_version) +
                           ", this glimpse uses version " + std::to_string(GLIMPSE_PLUGIN_API_VERSION) +
                           ": rebuild the plugin against this glimpse");
  const PluginSpec* spec = nullptr;
  try {
    spec = &entry->describe();
    check_spec(*spec);
  } catch (const std::exception& e) {
    throw Error(where, std::string("has an invalid description: ") + e.what());
  }
  library_store().push_back(std::move(library));
  loaded_files_.push_back(canonical);
  if (const LoadedPlugin* existing = find_loaded(spec->name)) {
    duplicates_.emplace_back(spec->name, file);
    problems_.push_back("plugin '" + spec->name + "' is defined twice: " + existing->file.string() + " and " + where);
    return nullptr;
  }
  plugins_.push_back({spec, entry, file, ""});
  return spec;
}

template <class Wanted>
void PluginRegistry::load_pending(Wanted wanted) const {
  std::lock_guard lock(*mutex_);
  std::vector<fs::path> files;
  std::erase_if(pending_, [&](const PendingLibrary& library) {
    if (!wanted(library)) return false;
    files.push_back(library.file);
    return true;
  });
  for (const auto& file : files) {
    try {
      load_library(file);
    } catch (const Error& e) {
      problems_.emplace_back(e.what());
    }
  }
}

void PluginRegistry::load_named(std::string_view name) const {
  const std::string_view family = name.substr(0, name.find(':'));
  load_pending([&](const PendingLibrary& library) { return library.name == name || library.name == family; });
}

const LoadedPlugin* PluginRegistry::find_loaded(std::string_view name) const noexcept {
  std::lock_guard lock(*mutex_);
  for (const auto& p : plugins_)
    if (p.spec->name == name) return &p;
  return nullptr;
}

const LoadedPlugin* PluginRegistry::find(std::string_view name) const noexcept {
  try {
    load_named(name);
    if (const LoadedPlugin* loaded = find_loaded(name)) return loaded;
    return member(name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

const LoadedPlugin* PluginRegistry::member(std::string_view name) const {
  const auto colon = name.find(':');
  if (colon == std::string_view::npos) return nullptr;
  load_named(name);
  const LoadedPlugin* family = nullptr;
  std::unique_lock registry_lock(*mutex_);
  for (const auto& p : plugins_)
    if (p.spec->name == name.substr(0, colon)) family = &p;
  registry_lock.unlock();
  if (!family || !family->entry->describe_member) return nullptr;
  std::lock_guard lock(*members_mutex_);
  for (const auto& m : members_)
    if (m.spec->name == name) return &m;
  const std::string argument(name.substr(colon + 1));
  PluginSpec spec;
  try {
    spec = family->entry->describe_member(argument);
    if (spec.name != name) throw Error("it describes itself as '" + spec.name + "'");
    check_spec(spec, true);
  } catch (const std::exception& e) {
    throw Error(std::string(name),
                std::string("no such member of the plugin family '") + family->spec->name + "': " + e.what());
  }
  member_specs_.push_back(std::move(spec));
  members_.push_back({&member_specs_.back(), family->entry, family->file, argument});
  return &members_.back();
}

const LoadedPlugin& PluginRegistry::get(std::string_view name, PluginKind kind, const std::string& where) const {
  const std::string kind_name(plugin_kind_name(kind));
  load_named(name);  // every library defining it, so that a duplicate is seen
  std::unique_lock lock(*mutex_);
  for (const auto& [duplicate, file] : duplicates_)
    if (duplicate == name)
      throw Error(where, kind_name + " '" + std::string(name) + "' is defined twice: " + find(name)->file.string() +
                             " and " + file.string() + "; remove one from the plugin path");
  const LoadedPlugin* plugin = find(name);
  if (!plugin) {
    try {
      plugin = member(name);  // again, for the family's reason when it names no member
    } catch (const Error& e) {
      throw Error(where, e.what());
    }
  }
  if (plugin && plugin->spec->kind == kind) return *plugin;
  std::string valid;
  for (const auto* p : plugins())  // loads every library, so the names and problems below are all there are
    if (p->spec->kind == kind) valid += (valid.empty() ? "" : ", ") + p->spec->name;
  const auto with_article = [](std::string_view noun) {
    return std::string(std::string_view("aeiou").find(noun.front()) != std::string_view::npos ? "an " : "a ") +
           std::string(noun);
  };
  std::string message = plugin
                            ? "'" + std::string(name) + "' is " + with_article(plugin_kind_name(plugin->spec->kind)) +
                                  ", expected " + with_article(kind_name)
                            : "unknown " + kind_name + " '" + std::string(name) + "'";
  message += "; available: " + (valid.empty() ? std::string("none") : valid);
  for (const auto& problem : problems_) message += "\n  (not loaded: " + problem + ")";
  throw Error(where, message);
}

const LoadedPlugin& PluginRegistry::dataset_name_server(const std::string& where) const {
  load_pending([](const PendingLibrary& library) { return library.serves_dataset_names; });
  std::lock_guard lock(*mutex_);
  const LoadedPlugin* server = nullptr;
  for (const auto& p : plugins_) {
    if (!p.spec->serves_dataset_names) continue;
    if (server)
      throw Error(where, "two data sources serve datasets by name: " + server->file.string() + " and " +
                             p.file.string() + "; remove one from the plugin path");
    server = &p;
  }
  if (!server)
    throw Error(where,
                "no loaded data source serves installed datasets by name; add the plugin folder that has one "
                "(`glimpse plugins` lists what is loaded), or write {\"source\": PLUGIN, \"params\": {...}}");
  return *server;
}

std::vector<const LoadedPlugin*> PluginRegistry::plugins() const {
  load_pending([](const PendingLibrary&) { return true; });
  std::lock_guard lock(*mutex_);
  std::vector<const LoadedPlugin*> result;
  for (const auto& p : plugins_) result.push_back(&p);
  std::sort(result.begin(), result.end(), [](const auto* a, const auto* b) {
    return std::pair(a->spec->kind, a->spec->name) < std::pair(b->spec->kind, b->spec->name);
  });
  return result;
}

std::vector<std::string> PluginRegistry::problems() const {
  load_pending([](const PendingLibrary&) { return true; });
  std::lock_guard lock(*mutex_);
  return problems_;
}

ParamValues PluginRegistry::resolve(const LoadedPlugin& plugin, const GivenParams& given, const ProblemShape* shape,
                                    const std::string& where, const std::filesystem::path& base_dir,
                                    const std::string& prefix) const {
  ParamValues values = resolve_params(plugin.spec->params, given, shape, where, prefix);
  values.set_base_dir(base_dir);
  for (const auto& spec : plugin.spec->params) {
    if (spec.type != ParamType::learner) continue;
    const LoadedPlugin& wrapped = get(values.text(spec.name), PluginKind::learner, where);
    ParamValues own = resolve(wrapped, given, shape, where, base_dir, prefix + spec.name + ".");
    for (const auto& [name, value] : own.entries()) values.set(spec.name + "." + name, value);
    values.set_factory(spec.name, [&wrapped, own = std::move(own)] { return wrapped.create(own); });
  }
  return values;
}

}  // namespace glimpse
