// Where the round loop's time goes (glimpse run --profile): ticks per phase, summed over runs.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace glimpse {

struct RoundProfile {
  // In round order; `test` is held-out evaluation, `data` the row view, its prefetch and the round's truth.
  enum Phase : std::size_t { data, predict, query, oracle, learn, metrics, trace, test, phase_count };
  static constexpr std::array<const char*, phase_count> phase_names{"data",    "predict", "query", "oracle",
                                                                    "learn",   "metrics", "trace", "test"};

  std::array<std::uint64_t, phase_count> ticks{};
  std::int64_t rounds = 0;
  double seconds = 0.0;  // wall time of the profiled round loops

  // A cheap monotonic counter: the CPU's timestamp counter where there is one (a few ns to read, so timing
  // every phase of a microsecond round distorts it little), else steady_clock. Only ratios of ticks are used.
  static std::uint64_t now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }

  void add(const RoundProfile& other) noexcept {
    for (std::size_t p = 0; p < phase_count; ++p) ticks[p] += other.ticks[p];
    rounds += other.rounds;
    seconds += other.seconds;
  }
};

// Charges the time since the previous lap to a phase.
class PhaseClock {
 public:
  explicit PhaseClock(RoundProfile& profile) noexcept : profile_(profile), last_(RoundProfile::now()) {}
  void lap(RoundProfile::Phase phase) noexcept {
    const std::uint64_t t = RoundProfile::now();
    profile_.ticks[phase] += t - last_;
    last_ = t;
  }

 private:
  RoundProfile& profile_;
  std::uint64_t last_;
};

// One profile per (dataset, learner label), in first-seen order.
struct ProfileRow {
  std::string dataset, learner;
  std::int64_t runs = 0;
  RoundProfile profile;
};


}  // namespace glimpse
