// A metric's value sampled every E rounds (rounds first, first + E, ...) as a curve, with the run's last round
// always included when reported: the curve part shared by the running-ratio, queries, regret and confusion
// metrics. Storage is reserved in reset(), so recording never allocates.
#pragma once

#include <cstdint>
#include <glimpse/interfaces.hpp>
#include <string>
#include <utility>

namespace glimpse::algorithms {

class SampledCurve {
 public:
  // every: rounds between points (0: no curve); first: the round of the first point.
  SampledCurve(std::string suffix, std::int64_t every, std::int64_t first)
      : suffix_(std::move(suffix)), every_(every), first_(first) {}

  void reset(std::int64_t total_rounds) {
    curve_ = {suffix_, {}, {}};
    if (every_ <= 0) return;
    curve_.rounds.reserve(static_cast<std::size_t>(total_rounds / every_ + 2));
    curve_.values.reserve(curve_.rounds.capacity());
  }
  bool due(std::int64_t round) const noexcept {
    return every_ > 0 && round >= first_ && (round - first_) % every_ == 0;
  }
  void record(std::int64_t round, double value) {
    curve_.rounds.push_back(round);
    curve_.values.push_back(value);
  }
  // Adds the curve (nothing when every = 0), ending with (last_round, last_value) if that point is missing.
  void report(MetricResults& out, std::int64_t last_round, double last_value) const {
    if (every_ <= 0) return;
    auto curve = curve_;
    if (curve.rounds.empty() || curve.rounds.back() != last_round) {
      curve.rounds.push_back(last_round);
      curve.values.push_back(last_value);
    }
    out.curves.push_back(std::move(curve));
  }

 private:
  std::string suffix_;
  std::int64_t every_, first_;
  MetricResults::Curve curve_;
};

}  // namespace glimpse::algorithms
