// CS-Selectron with the linear link (Agarwal, ICML 2013; ALGORITHMS.md section 7): a GLM refitted exactly
// on every labelled round, W = B (A + 2 gamma I)^{-1} with A = sum x x^T and B = sum (e_y - 1/K) x^T over the
// labelled rounds, (A + 2 gamma I)^{-1} kept by Sherman-Morrison (O(d^2) a round); probabilities
// p_i = v_i - (sum_j v_j - 1)/K with v = W x; prediction argmax_i S(i) = sum_j (C_max - C(j, i)) p_j under a
// cost matrix. The scores handed to query rules (DGS) are the S(i). The logistic link is not implemented yet.
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/glimpse.hpp>

namespace {

std::vector<glimpse::ParamSpec> selectron_params() {
  std::vector<glimpse::ParamSpec> params{
      glimpse::ParamSpec::choice("link", "linear", {"linear"}, "the GLM link (logistic: not implemented yet)"),
      glimpse::ParamSpec::real("gamma", "1-1/K", "regularisation gamma (default gamma_l = 1 - 1/K)").above(0)};
  for (auto& p : glimpse::algorithms::cost_params()) params.push_back(std::move(p));
  return params;
}

class CsSelectron final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cs_selectron",
            .kind = glimpse::PluginKind::learner,
            .summary =
                "cost-sensitive GLM (linear link, exact refit on labelled rounds), predicts the least "
                "expected cost",
            .reference =
                "Agarwal, Selective sampling algorithms for cost-sensitive multiclass prediction, ICML 2013, "
                "sections 3-4; ALGORITHMS.md 7",
            .params = selectron_params(),
            .accepts = {glimpse::FeedbackKind::label}};
  }
  explicit CsSelectron(const glimpse::ParamValues& params) : gamma_(params.real("gamma")), costs_(params) {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    k_ = shape.K;
    costs_.reset(shape.K);
    inverse_.reset(shape.d, 2.0 * gamma_);
    b_.setZero(shape.K, shape.d);
    v_.setZero(shape.K);
    p_.setZero(shape.K);
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    last_r_ = inverse_.quadratic(x);
    v_.noalias() = b_ * inverse_.last_product();
    const double shift = (v_.sum() - 1.0) / k_;
    for (std::int32_t i = 0; i < k_; ++i) p_[i] = v_[i] - shift;
    const double top = costs_.max();
    for (std::int32_t i = 0; i < k_; ++i) {
      double s = 0.0;
      for (std::int32_t j = 0; j < k_; ++j) s += (top - costs_(j, i)) * p_[j];
      pred.scores[static_cast<std::size_t>(i)] = s;
    }
    pred.predicted = glimpse::argmax(pred.scores);
    pred.proposed = pred.predicted;
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    inverse_.add_last(last_r_);  // (A + 2 gamma I)^{-1} with this x added; predict() just computed its parts
    for (std::int32_t i = 0; i < k_; ++i) {
      const double coefficient = (i == y ? 1.0 : 0.0) - 1.0 / k_;
      auto row = b_.row(i);
      if (x.is_dense()) {
        for (std::int32_t j = 0; j < x.dim; ++j) row[j] += coefficient * x.values[j];
      } else {
        for (std::int32_t e = 0; e < x.nnz; ++e) row[x.indices[e]] += coefficient * x.values[e];
      }
    }
  }

 private:
  double gamma_;
  glimpse::algorithms::CostMatrix costs_;
  glimpse::algorithms::InverseTracker inverse_;
  Eigen::MatrixXd b_;
  Eigen::VectorXd v_, p_;
  std::int32_t k_ = 0;
  double last_r_ = 0.0;
};

}  // namespace

GLIMPSE_PLUGIN(CsSelectron)
