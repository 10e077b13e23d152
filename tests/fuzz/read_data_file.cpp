// Fuzz target: one data reader plugin (GLIMPSE_FUZZ_READER: libsvm, arff, csv, vw or idx) on arbitrary file
// contents, then the checks the orchestrator makes on every loaded dataset. For idx, whose data comes in two
// files, the input's first two bytes say where the images file ends and the labels file begins.
#include "fuzz_support.hpp"

namespace fuzz = glimpse::fuzz;

// Plugins are loaded before fuzzing starts, so libFuzzer counts their code's coverage from the first input.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string reader = GLIMPSE_FUZZ_READER;
  static const fuzz::ScratchFile file(reader), second(reader + "-labels");
  std::map<std::string, std::string> params;
  if (reader == "idx") {
    fuzz::ByteReader input(data, size);
    const auto split = input.take<std::uint16_t>();
    const std::string_view rest = input.rest();
    const std::size_t images = std::min<std::size_t>(split, rest.size());
    file.write(rest.substr(0, images));
    second.write(rest.substr(images));
    params = {{"images", file.path().string()}, {"labels", second.path().string()}};
  } else {
    file.write({reinterpret_cast<const char*>(data), size});
    params = {{"path", file.path().string()}};
  }
  fuzz::refuse_only_with_glimpse_errors([&] {
    const glimpse::Dataset dataset = fuzz::make_data_source(reader, params)->load();
    dataset.validate(file.path().string());
  });
  return 0;
}
