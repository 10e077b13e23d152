// The multiclass single-constraint form of the confidence-weighted learners (AROW, SCW; Crammer, Dredze &
// Kulesza, EMNLP 2009), as SOL runs them: a diagonal confidence S_k per class (starting at 1) and one constraint
// per round, the true label y against the runner-up r, i.e. the binary update applied to x (e_y - e_r), whose
// margin m = s_y - s_r has variance v = x' S_y x + x' S_r x. A learner supplies its alpha and beta; the step is
// w_y += alpha S_y x, w_r -= alpha S_r x, S_k -= beta (S_k x)^2 elementwise for k = y, r.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <glimpse/glimpse.hpp>

namespace glimpse::algorithms {

template <class T>
class RunnerUpConfidence {
 public:
  struct Constraint {
    std::int32_t y, rival;
    double margin;  // s_y - s_r
  };

  void reset(std::int32_t classes, std::int32_t d) { confidence_.setOnes(classes, d); }

  static Constraint against_runner_up(const Prediction& pred, std::int32_t y) {
    const std::int32_t rival = argmax_except(pred.scores, y);
    return {y, rival, pred.scores[static_cast<std::size_t>(y)] - pred.scores[static_cast<std::size_t>(rival)]};
  }

  double variance(const Instance& x, const Constraint& c) const {
    double v = 0;
    x.for_each_stored([&](std::int32_t j, double value) {
      v += value * value * (static_cast<double>(confidence_(c.y, j)) + static_cast<double>(confidence_(c.rival, j)));
    });
    return v;
  }

  template <class Weights>
  void step(Weights& w, const Instance& x, const Constraint& c, double alpha, double beta) {
    x.for_each_stored([&](std::int32_t j, double value) {
      for (const auto& [k, sign] : {std::pair{c.y, 1.0}, std::pair{c.rival, -1.0}}) {
        const double s = static_cast<double>(confidence_(k, j)) * value;
        w(k, j) += static_cast<T>(sign * alpha * s);
        confidence_(k, j) -= static_cast<T>(beta * s * s);
      }
    });
  }

 private:
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> confidence_;
};

}  // namespace glimpse::algorithms
