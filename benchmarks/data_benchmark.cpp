// Data loading: an installed dataset from the cache (fashion_mnist: 60,000 x 784), and LIBSVM text parsing
// on a generated 100 MB file (20News-like rows: 100 features of 60,000 per row).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "glimpse/dataset_file.hpp"
#include "glimpse/glimpse.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"

namespace glimpse {
namespace {

void BM_LoadCachedDataset(benchmark::State& state, const std::string& name) {
  if (!std::filesystem::exists(cached_dataset_file(name))) {
    state.SkipWithError(("not installed: glimpse datasets install " + name).c_str());
    return;
  }
  std::int64_t bytes = 0;
  for (auto _ : state) {
    const Dataset data = load_cached_dataset(name, "benchmark");
    bytes = data.stored_values() * static_cast<std::int64_t>(sizeof(Feature));
    benchmark::DoNotOptimize(data.row(0).values);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK_CAPTURE(BM_LoadCachedDataset, fashion_mnist, std::string("fashion_mnist"))->Unit(benchmark::kMillisecond);

const std::filesystem::path& libsvm_file() {
  static const std::filesystem::path file = [] {
    const auto path = std::filesystem::temp_directory_path() / "glimpse-benchmark-100mb.libsvm";
    if (std::filesystem::exists(path) && std::filesystem::file_size(path) >= 100'000'000) return path;
    std::ofstream out(path);
    Rng rng(1);
    char buffer[64];
    std::int64_t written = 0;
    while (written < 100'000'000) {
      std::string line = std::to_string(1 + rng.below(20));
      std::int64_t index = 0;
      for (int j = 0; j < 100; ++j) {
        index += 1 + static_cast<std::int64_t>(rng.below(1199));
        std::snprintf(buffer, sizeof buffer, " %lld:%.6g", static_cast<long long>(index), rng.uniform());
        line += buffer;
      }
      line += '\n';
      out << line;
      written += static_cast<std::int64_t>(line.size());
    }
    return path;
  }();
  return file;
}

// A data source of this build's plugins with its defaults, reading `file`.
std::unique_ptr<PluginObject> source_reading(const std::string& name, const std::filesystem::path& file) {
  static PluginRegistry registry = [] {
    PluginRegistry loaded;
    loaded.load_directory(GLIMPSE_BENCH_PLUGIN_DIR);
    return loaded;
  }();
  const LoadedPlugin* plugin = registry.find(name);
  ParamValues params;
  for (const auto& p : plugin->spec->params)
    params.set(p.name, p.name == "path" ? ParamValue{file.string()} : *resolve_default(p, nullptr));
  return plugin->create(params);
}

void parse(benchmark::State& state, const std::string& source_name, const std::filesystem::path& file) {
  auto object = source_reading(source_name, file);
  auto* source = dynamic_cast<DataSource*>(object.get());
  std::int64_t rows = 0;
  for (auto _ : state) {
    const Dataset data = source->load();
    rows = data.size();
    benchmark::DoNotOptimize(data.row(0).values);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(std::filesystem::file_size(file)));
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_ParseLibsvm(benchmark::State& state) { parse(state, "libsvm", libsvm_file()); }
BENCHMARK(BM_ParseLibsvm)->Unit(benchmark::kMillisecond)->Iterations(3);

// Any text file with any reader: GLIMPSE_PARSE_FILE and GLIMPSE_PARSE_SOURCE (vw, libsvm, csv), as
// benchmarks/parse_vs_vw.sh runs it. Skipped without them.
void BM_ParseFile(benchmark::State& state) {
  const char* file = std::getenv("GLIMPSE_PARSE_FILE");
  const char* source = std::getenv("GLIMPSE_PARSE_SOURCE");
  if (!file || !source) {
    state.SkipWithError("set GLIMPSE_PARSE_FILE and GLIMPSE_PARSE_SOURCE");
    return;
  }
  parse(state, source, file);
}
BENCHMARK(BM_ParseFile)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace glimpse
