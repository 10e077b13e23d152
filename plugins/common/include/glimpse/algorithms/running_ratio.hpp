// A running ratio of counted rounds (correct, wrong, ...) over all rounds, with its value sampled every E rounds
// as a curve and the final round always included: shared by the online_accuracy and average_error metrics.
#pragma once

#include <cstdint>
#include <glimpse/interfaces.hpp>

namespace glimpse::algorithms {

class RunningRatioCurve {
 public:
  // every: rounds between curve points (0: no curve); first: the round of the first point (1 or every).
  RunningRatioCurve(std::int64_t every, std::int64_t first) : every_(every), first_(first) {}

  void reset(std::int64_t total_rounds) {
    hits_ = rounds_ = 0;
    curve_ = {};
    if (every_ > 0) {
      curve_.rounds.reserve(static_cast<std::size_t>(total_rounds / every_ + 2));
      curve_.values.reserve(curve_.rounds.capacity());
    }
  }
  void observe(std::int64_t round, bool hit) {
    ++rounds_;
    hits_ += hit;
    if (every_ > 0 && round >= first_ && (round - first_) % every_ == 0) {
      curve_.rounds.push_back(round);
      curve_.values.push_back(value());
    }
  }
  void report(MetricResults& out) const {
    out.scalars.push_back({"", value()});
    if (every_ <= 0) return;
    auto curve = curve_;
    if (curve.rounds.empty() || curve.rounds.back() != rounds_) {
      curve.rounds.push_back(rounds_);
      curve.values.push_back(value());
    }
    out.curves.push_back(std::move(curve));
  }
  double value() const { return rounds_ ? static_cast<double>(hits_) / static_cast<double>(rounds_) : 0.0; }

 private:
  std::int64_t every_, first_;
  std::int64_t hits_ = 0, rounds_ = 0;
  MetricResults::Curve curve_;
};

}  // namespace glimpse::algorithms
