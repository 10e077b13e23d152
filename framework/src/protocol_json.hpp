// Reading a protocol's JSON (Boost.PropertyTree): every value found by path, checked against what is expected, and
// an Error naming the file and the path when it is not (protocol.cpp).
#pragma once

#include <boost/property_tree/ptree.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/error.hpp"
#include "param_resolution.hpp"
#include "protocol.hpp"

namespace glimpse::protocol_json {
namespace pt = boost::property_tree;

inline bool is_list(const pt::ptree& node) {
  return !node.empty() && std::all_of(node.begin(), node.end(), [](const auto& c) { return c.first.empty(); });
}
inline bool is_object(const pt::ptree& node) {
  return !node.empty() && std::none_of(node.begin(), node.end(), [](const auto& c) { return c.first.empty(); });
}
inline bool is_value(const pt::ptree& node) { return node.empty(); }

inline std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Walks a protocol tree, carrying "file: path.inside" for every message.
// "unknown parameter 'etta' of learner 'perceptron'; declared: eta, margin, precision"
inline std::string unknown_parameter(const std::string& param, const std::string& kind_name, const std::string& plugin,
                                     const PluginSpec& spec) {
  std::vector<std::string> names;
  for (const auto& p : spec.params) names.push_back(p.name);
  return "unknown parameter '" + param + "' of " + kind_name + " '" + plugin +
         "'; declared: " + (names.empty() ? std::string("none") : join(names));
}

class Reader {
 public:
  Reader(std::string file, std::filesystem::path base_dir, const PluginRegistry& registry)
      : file_(std::move(file)), base_dir_(std::move(base_dir)), registry_(registry) {}

  std::string at(const std::string& path) const { return path.empty() ? file_ : file_ + ": " + path; }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw Error(at(path), what); }

  void only_keys(const pt::ptree& node, const std::string& path, const std::vector<std::string>& allowed) const {
    for (const auto& [key, child] : node) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(path.empty() ? key : path + "." + key, "unknown key '" + key + "'; expected one of " + join(allowed));
    }
  }

  std::string value(const pt::ptree& node, const std::string& path, const std::string& expected) const {
    if (!is_value(node)) fail(path, "expected " + expected + ", got a list or an object");
    return node.data();
  }

  // One of a fixed set of words, as written at `path`: the meaning paired with it.
  template <class T>
  T choice(const pt::ptree& node, const std::string& path,
           std::initializer_list<std::pair<const char*, T>> words) const {
    std::string expected;  // "a, b or c"
    for (auto it = words.begin(); it != words.end(); ++it)
      expected += std::string(it == words.begin() ? "" : it + 1 == words.end() ? " or " : ", ") + it->first;
    const std::string written = value(node, path, expected);
    for (const auto& [word, meaning] : words)
      if (written == word) return meaning;
    fail(path, "expected " + expected + ", got '" + written + "'");
  }

  const pt::ptree* child(const pt::ptree& node, const std::string& key) const {
    const auto it = node.find(key);
    return it == node.not_found() ? nullptr : &it->second;
  }

  // A parameter value as written: valid for its declaration, and an existing file for a path parameter.
  void check_value(const ParamSpec& p, const std::string& text, const std::string& where) const {
    try {
      resolve_param(p, text, nullptr);
    } catch (const Error& e) {
      throw Error(where, e.what());
    }
    if (p.type == ParamType::path && !text.empty()) {
      const std::filesystem::path file = resolve_path(base_dir_, text);
      if (!std::filesystem::is_regular_file(file))
        throw Error(where, "expected an existing file, got '" + text + "' (looked for " + file.string() + ")");
    }
  }

  // A "NAME.PARAM" value for the learner a `learner` parameter NAME wraps, kept until that learner is known.
  struct WrappedValue {
    std::string owner, name, text, path;
  };

  // The learners a `learner` parameter may name here (its fixed value, each grid value, or its default), each
  // checked: a learner plugin that learns from full labels and wraps none itself, given only parameters it
  // declares, with valid values, and every parameter it requires.
  void check_wrapped(const PluginUse& use, const ParamSpec& wrapper, const std::string& path,
                     const std::vector<WrappedValue>& wrapped) const {
    std::vector<std::pair<std::string, std::string>> candidates;  // name, where it was given
    for (const auto& p : use.params)
      if (p.name == wrapper.name) candidates.emplace_back(p.text, p.where);
    for (const auto& [name, values] : use.grid)
      if (name == wrapper.name)
        for (const auto& v : values) candidates.emplace_back(v.text, v.where);
    if (candidates.empty()) candidates.emplace_back(wrapper.default_value, at(path + ".params." + wrapper.name));
    for (const auto& [learner, where] : candidates) {
      const LoadedPlugin& base = registry_.get(learner, PluginKind::learner, where);
      if (!base.spec->accepts.contains(FeedbackKind::label))
        throw Error(where, "learner '" + learner + "' does not learn from full labels, which '" + wrapper.name +
                               "' must (it is fed the label of every right proposal)");
      for (const auto& q : base.spec->params)
        if (q.type == ParamType::learner) throw Error(where, "a wrapped learner cannot wrap another one");
      std::set<std::string> given;
      for (const auto& v : wrapped) {
        if (v.owner != wrapper.name) continue;
        const ParamSpec* declared = nullptr;
        for (const auto& q : base.spec->params)
          if (q.name == v.name) declared = &q;
        if (!declared) fail(v.path, unknown_parameter(v.name, "learner", learner, *base.spec));
        check_value(*declared, v.text, at(v.path));
        given.insert(v.name);
      }
      for (const auto& q : base.spec->params)
        if (q.required && !given.count(q.name))
          throw Error(where, "learner '" + learner + "' needs its parameter '" + q.name + "' as " + wrapper.name + "." +
                                 q.name + " (" + q.doc + ")");
    }
  }

  // Whether two values as written are the same value: the same text, or the same number written two ways (1e-3, 0.001).
  static bool same_value(const std::string& a, const std::string& b) {
    if (a == b) return true;
    return is_number_text(a) && is_number_text(b) && std::strtod(a.c_str(), nullptr) == std::strtod(b.c_str(), nullptr);
  }

  // Parses {"name": ..., "params": {...}, ["grid": {...}], ["as": ...]} and checks it against the plugin.
  PluginUse plugin_use(const pt::ptree& node, const std::string& path, PluginKind kind, const std::string& name_key,
                       std::vector<std::string> allowed) const {
    const std::string kind_name(plugin_kind_name(kind));
    if (!is_object(node)) fail(path, "expected an object such as {\"" + name_key + "\": \"...\"}");
    only_keys(node, path, allowed);
    const pt::ptree* name_node = child(node, name_key);
    if (!name_node) fail(path, "missing \"" + name_key + "\" (the " + kind_name + " plugin to use)");
    const std::string name = value(*name_node, path + "." + name_key, "a plugin name");
    PluginUse use;
    use.base_dir = base_dir_;
    use.where = at(path);
    use.plugin = &registry_.get(name, kind, at(path + "." + name_key));
    const PluginSpec& spec = *use.plugin->spec;
    use.output_name = name;

    std::set<std::string> seen;
    const auto declared = [&](const std::string& param, const std::string& param_path) -> const ParamSpec& {
      for (const auto& p : spec.params)
        if (p.name == param) {
          if (!seen.insert(param).second) fail(param_path, "parameter '" + param + "' is given twice");
          return p;
        }
      fail(param_path, unknown_parameter(param, kind_name, name, spec));
    };
    // The `learner` parameter a "NAME.PARAM" key belongs to, or none: its values are checked by check_wrapped.
    const auto owner_of = [&](const std::string& key) -> const ParamSpec* {
      const auto dot = key.find('.');
      if (dot != std::string::npos)
        for (const auto& p : spec.params)
          if (p.type == ParamType::learner && p.name == key.substr(0, dot)) return &p;
      return nullptr;
    };
    std::vector<WrappedValue> wrapped;
    // One value as written at `value_path`, for the parameter `key` (declared, or wrapped when `p` is null).
    const auto take = [&](const std::string& key, const ParamSpec* p, const pt::ptree& v,
                          const std::string& value_path) {
      const std::string text = value(v, value_path, p ? "a single " + p->type_name() + " value" : "a single value");
      if (p)
        check_value(*p, text, at(value_path));
      else
        wrapped.push_back({owner_of(key)->name, key.substr(key.find('.') + 1), text, value_path});
      return RawParam{key, text, at(value_path)};
    };
    if (const pt::ptree* params = child(node, "params")) {
      if (!is_object(*params) && !params->empty()) fail(path + ".params", "expected an object of parameter values");
      for (const auto& [key, v] : *params) {
        const std::string p_path = path + ".params." + key;
        use.params.push_back(take(key, owner_of(key) ? nullptr : &declared(key, p_path), v, p_path));
      }
    }
    if (const pt::ptree* grid = child(node, "grid")) {
      if (!is_object(*grid)) fail(path + ".grid", "expected an object mapping parameter names to lists of values");
      for (const auto& [key, values] : *grid) {
        const std::string g_path = path + ".grid." + key;
        const ParamSpec* p = owner_of(key) ? nullptr : &declared(key, g_path);
        if (!is_list(values)) fail(g_path, "expected a non-empty list of values");
        std::vector<RawParam> entries;
        int i = 0;
        for (const auto& item : values)
          entries.push_back(take(key, p, item.second, g_path + "[" + std::to_string(i++) + "]"));
        for (std::size_t a = 0; a < entries.size(); ++a)
          for (std::size_t b = 0; b < a; ++b)
            if (same_value(entries[a].text, entries[b].text))
              fail(g_path + "[" + std::to_string(a) + "]",
                   "repeats " + key + "[" + std::to_string(b) + "] (" + entries[b].text +
                       "): a grid point is run once, so list each value once");
        use.grid.emplace_back(key, std::move(entries));
      }
    }
    for (const auto& p : spec.params)
      if (p.required && !seen.count(p.name))
        fail(path + ".params",
             "missing required parameter '" + p.name + "' of " + kind_name + " '" + name + "' (" + p.doc + ")");
    use.registry = &registry_;
    for (const auto& p : spec.params)
      if (p.type == ParamType::learner) check_wrapped(use, p, path, wrapped);
    if (const pt::ptree* as = child(node, "as")) use.output_name = value(*as, path + ".as", "a name");
    return use;
  }

  // A dataset entry written by name: the data source serving dataset names, with `dataset` as written at `path`.
  PluginUse named_dataset(const std::string& dataset, const std::string& entry_path, const std::string& path) const {
    PluginUse use;
    use.plugin = &registry_.dataset_name_server(at(path));
    use.registry = &registry_;
    use.where = at(entry_path);
    use.params.push_back({"dataset", dataset, at(path)});
    use.output_name = use.name();
    use.base_dir = base_dir_;
    return use;
  }

  // The items of the list under `key` of `parent` (at `parent_path`), each with its path ("datasets[0].transforms[1]").
  std::vector<std::pair<std::string, const pt::ptree*>> list(const pt::ptree& parent, const std::string& key,
                                                             bool required, const std::string& parent_path = "") const {
    std::vector<std::pair<std::string, const pt::ptree*>> items;
    const pt::ptree* node = child(parent, key);
    if (!node) {
      if (required) fail(parent_path, "missing \"" + key + "\" (a non-empty list)");
      return items;
    }
    const std::string path = parent_path.empty() ? key : parent_path + "." + key;
    if (!is_list(*node)) fail(path, "expected a non-empty list");
    int i = 0;
    for (const auto& item : *node) items.emplace_back(path + "[" + std::to_string(i++) + "]", &item.second);
    return items;
  }

 private:
  std::string file_;
  std::filesystem::path base_dir_;
  const PluginRegistry& registry_;
};

inline std::int64_t parse_integer(const Reader& r, const pt::ptree& node, const std::string& path, std::int64_t min) {
  const std::string text = r.value(node, path, "an integer");
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < min)
    r.fail(path,
           "expected an integer >= " + std::to_string(min) + ", got " + (text.empty() ? "nothing" : "'" + text + "'"));
  return v;
}

// A fraction in (0, 1), or (0, 1] with one_allowed.
inline double parse_fraction(const Reader& r, const pt::ptree& node, const std::string& path, bool one_allowed) {
  const std::string written = r.value(node, path, "a fraction");
  char* end = nullptr;
  const double v = std::strtod(written.c_str(), &end);
  if (written.empty() || *end != '\0' || !(v > 0.0 && (one_allowed ? v <= 1.0 : v < 1.0)))
    r.fail(path, std::string("expected a fraction in (0, 1") + (one_allowed ? "]" : ")") + ", got '" + written + "'");
  return v;
}

}  // namespace glimpse::protocol_json
