// Fuzz target: protocol parsing and validation (structure, plugin names and kinds, parameter names and
// values, expressions of K, d, n, feedback compatibility) on arbitrary text, against this build's plugins.
#include "fuzz_support.hpp"
#include "protocol.hpp"

namespace fuzz = glimpse::fuzz;

// Plugins are loaded before fuzzing starts, so libFuzzer counts their code's coverage from the first input.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::refuse_only_with_glimpse_errors([&] {
    glimpse::parse_protocol(text, "fuzzed.json", std::filesystem::temp_directory_path(), fuzz::registry());
  });
  return 0;
}
