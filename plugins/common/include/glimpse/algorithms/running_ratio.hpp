// A running ratio of counted rounds (correct, wrong, ...) over all rounds, with its value sampled every E rounds
// as a curve and the final round always included: shared by the online_accuracy and average_error metrics.
#pragma once

#include <cstdint>
#include <glimpse/algorithms/sampled_curve.hpp>
#include <glimpse/interfaces.hpp>

namespace glimpse::algorithms {

class RunningRatioCurve {
 public:
  // every: rounds between curve points (0: no curve); first: the round of the first point (1 or every).
  RunningRatioCurve(std::int64_t every, std::int64_t first) : curve_("", every, first) {}

  void reset(std::int64_t total_rounds) {
    hits_ = rounds_ = 0;
    curve_.reset(total_rounds);
  }
  void observe(std::int64_t round, bool hit) {
    ++rounds_;
    hits_ += hit;
    if (curve_.due(round)) curve_.record(round, value());
  }
  void report(MetricResults& out) const {
    out.scalars.push_back({"", value()});
    curve_.report(out, rounds_, value());
  }
  double value() const { return rounds_ ? static_cast<double>(hits_) / static_cast<double>(rounds_) : 0.0; }

 private:
  std::int64_t hits_ = 0, rounds_ = 0;
  SampledCurve curve_;
};

}  // namespace glimpse::algorithms
