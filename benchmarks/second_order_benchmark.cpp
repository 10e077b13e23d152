// One round of the shared second-order state (plugins/common algorithms/second_order_state.hpp): form M^{-1} x and
// add x, as squarecb's ridge step does, for the exact packed inverse in float and double and the rank-10 sketch,
// over d. K = 10 states are cycled, as per-class learners do, so the exact form's K d (d + 1) / 2 numbers leave the
// cache at large d as they do in a run. Rows: half their entries 0 (as fashion-MNIST's pixels), the rest in [0, 0.05).
// The d where the sketch's time falls below the exact form's is where it starts to pay (docs/performance.md).
#include <benchmark/benchmark.h>

#include <glimpse/algorithms/second_order_state.hpp>
#include <vector>

namespace {

constexpr int kStates = 10, kRows = 64;

std::vector<Eigen::VectorXd> rows(std::int64_t d) {
  glimpse::Rng rng(1);
  std::vector<Eigen::VectorXd> out(kRows, Eigen::VectorXd(d));
  for (auto& x : out)
    for (std::int64_t j = 0; j < d; ++j) x[j] = rng.uniform() < 0.5 ? 0.0 : rng.uniform() / 20;
  return out;
}

template <class State, class Reset>
void run_rounds(benchmark::State& state, Reset reset) {
  const std::int64_t d = state.range(0);
  std::vector<State> states(kStates);
  for (auto& s : states) reset(s, d);
  const auto xs = rows(d);
  std::int64_t t = 0;
  for (auto _ : state) {
    auto& s = states[static_cast<std::size_t>(t % kStates)];
    const double r = s.quadratic_dense(xs[static_cast<std::size_t>(t % kRows)]);
    s.add_last(r);
    benchmark::DoNotOptimize(r);
    ++t;
  }
  state.SetItemsProcessed(state.iterations());
}

template <class T>
void BM_SecondOrderExact(benchmark::State& state) {
  run_rounds<glimpse::algorithms::SecondOrderState<T>>(
      state, [](auto& s, std::int64_t d) { s.reset(d, 1.0, "benchmark", 1e12); });
}

void BM_SecondOrderSketch10(benchmark::State& state) {
  run_rounds<glimpse::algorithms::SketchedSecondOrderState>(state,
                                                            [](auto& s, std::int64_t d) { s.reset(d, 1.0, 10); });
}

BENCHMARK_TEMPLATE(BM_SecondOrderExact, float)->RangeMultiplier(2)->Range(32, 2048)->Arg(784)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_SecondOrderExact, double)->RangeMultiplier(2)->Range(32, 2048)->Arg(784)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SecondOrderSketch10)->RangeMultiplier(2)->Range(32, 2048)->Arg(784)->Unit(benchmark::kMicrosecond);

}  // namespace
