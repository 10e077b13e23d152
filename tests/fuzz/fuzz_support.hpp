// What the fuzz targets share: the plugins of this build, scratch files for inputs that readers take as
// files, a little-endian byte reader for structure-aware targets, and the one rule every target enforces:
// bad input may be refused only with glimpse::Error (which names the file and what was expected). Any
// other exception, a crash or a sanitizer report is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "glimpse/glimpse.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"

namespace glimpse::fuzz {

// The plugins built with this tree, loaded once (before fuzzing starts, so libFuzzer sees their coverage).
inline const PluginRegistry& registry() {
  static const PluginRegistry loaded = [] {
    PluginRegistry r;
    r.load_directory(GLIMPSE_FUZZ_PLUGIN_DIR);
    return r;
  }();
  return loaded;
}

inline std::unique_ptr<DataSource> make_data_source(const std::string& name,
                                                    const std::map<std::string, std::string>& params) {
  const LoadedPlugin& plugin = registry().get(name, PluginKind::data_source, "fuzz target");
  auto object = plugin.create(registry().resolve(plugin, given_by_name(params, "fuzz target"), nullptr, "fuzz target"));
  return std::unique_ptr<DataSource>(dynamic_cast<DataSource*>(object.release()));
}

// A file of this process in the temporary folder, rewritten with each input.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("glimpse-fuzz-" + std::to_string(::getpid()) + "-" + name)) {}
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  void write(std::string_view bytes) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Reads fixed-size little-endian values from the input; zeros once it is used up, so every input decodes.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  template <class T>
  T take() {
    T value{};
    const std::size_t n = std::min(sizeof(T), size_ - used_);
    std::memcpy(&value, data_ + used_, n);
    used_ += n;
    return value;
  }
  std::string_view rest() {
    const std::string_view all(reinterpret_cast<const char*>(data_) + used_, size_ - used_);
    used_ = size_;
    return all;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t used_ = 0;
};

template <class F>
void refuse_only_with_glimpse_errors(F&& attempt) {
  try {
    attempt();
  } catch (const Error&) {
    // a clear refusal: what bad input should get
  }
}

}  // namespace glimpse::fuzz
