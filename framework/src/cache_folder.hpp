#pragma once
// The user's cache folder for glimpse, where the plugin index and the installed datasets live.
#include <cstdlib>
#include <filesystem>

namespace glimpse {

// $XDG_CACHE_HOME/glimpse, else $HOME/.cache/glimpse; empty where neither is set (the caller decides: the plugin
// index then keeps none, the datasets go under /tmp).
inline std::filesystem::path user_cache_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "glimpse";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "glimpse";
  return {};
}

}  // namespace glimpse
