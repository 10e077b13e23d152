// Fuzz target: the converted-dataset cache loader on structurally valid HDF5 files whose contents are
// decoded from the input (attributes K, d, layout, class names; the arrays y, X or indptr/indices/values of
// any sizes and values), then the checks the orchestrator makes on every loaded dataset. Random bytes as an
// HDF5 file would mostly exercise libhdf5's own parser, which is not ours to harden.
#include <cstdlib>

#include "glimpse/dataset_file.hpp"
#include "fuzz_support.hpp"
#include "hdf5.hpp"

namespace fuzz = glimpse::fuzz;
namespace h5 = glimpse::h5;

namespace {

template <class T>
std::vector<T> take_array(fuzz::ByteReader& input) {
  std::vector<T> values(input.take<std::uint8_t>() % 48);
  for (auto& v : values) v = input.take<T>();
  return values;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static const std::filesystem::path cache =
      std::filesystem::temp_directory_path() / ("glimpse-fuzz-cache-" + std::to_string(::getpid()));
  std::filesystem::create_directories(cache);
  ::setenv("GLIMPSE_DATA", cache.c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::ByteReader input(data, size);
  const auto flags = input.take<std::uint8_t>();
  {
    const h5::Handle f = h5::create_file(glimpse::cached_dataset_file("fuzzed"));
    if (!(flags & 1)) h5::write_attribute(f, "format", std::string("glimpse-dataset"));
    h5::write_attribute(f, "K", std::int64_t{input.take<std::int32_t>()});
    h5::write_attribute(f, "d", std::int64_t{input.take<std::int32_t>()});
    h5::write_attribute(f, "layout", std::string(flags & 2 ? "csr" : "dense"));
    if (!(flags & 4)) h5::write_vector<std::int32_t>(f, "y", take_array<std::int32_t>(input));
    if (flags & 2) {
      h5::write_vector<std::int64_t>(f, "indptr", take_array<std::int64_t>(input));
      h5::write_vector<std::int32_t>(f, "indices", take_array<std::int32_t>(input));
      h5::write_vector<float>(f, "values", take_array<float>(input));
    } else {
      const std::int64_t rows = input.take<std::uint8_t>() % 8, columns = input.take<std::uint8_t>() % 8;
      std::vector<float> values(static_cast<std::size_t>(rows * columns));
      for (auto& v : values) v = input.take<float>();
      h5::write_matrix<float>(f, "X", values, rows, columns);
    }
    if (!(flags & 8)) h5::write_attribute(f, "class_names", std::string(input.rest()));
  }
  fuzz::refuse_only_with_glimpse_errors([] {
    const glimpse::Dataset dataset = glimpse::load_cached_dataset("fuzzed", "fuzz target");
    dataset.validate("fuzzed");
  });
  return 0;
}
