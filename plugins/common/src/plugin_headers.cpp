// The unit of glimpse_plugin_headers (plugins/CMakeLists.txt): only there to carry the precompiled header the in-tree
// plugins reuse; it defines nothing.
