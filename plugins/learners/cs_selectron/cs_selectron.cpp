// CS-Selectron (Agarwal, ICML 2013; ALGORITHMS.md section 7): a GLM refitted on the labelled rounds that
// predicts the label of least expected cost, argmax_i S(i) with S(i) = sum_j (C_max - C(j, i)) p_j. The
// scores handed to query rules (DGS) are the S(i).
//   logistic link: p = softmax(W x), W minimising the regularised log-loss over the labelled rounds by
//     warm-started L-BFGS (LogisticGlm: tolerance, iteration cap, optional geometric refit schedule);
//   linear link: p_i = v_i - (sum_j v_j - 1)/K with v = W x, and the exact refit W = B (A + 2 gamma I)^{-1},
//     A = sum x x^T and B = sum (e_y - 1/K) x^T over the labelled rounds, (A + 2 gamma I)^{-1} kept by
//     Sherman-Morrison (O(d^2) a round).
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/algorithms/logistic_glm.hpp>
#include <glimpse/glimpse.hpp>
#include <numbers>

namespace {

std::vector<glimpse::ParamSpec> selectron_params() {
  std::vector<glimpse::ParamSpec> params{
      glimpse::ParamSpec::choice("link", "logistic", {"logistic", "linear"},
                                 "the GLM link: multinomial logit, or linear (closed-form refit)"),
      glimpse::ParamSpec::real("gamma", "0",
                               "regularisation gamma; 0 means gamma_l of the link: 1/(e K^2) logistic, 1 - 1/K "
                               "linear")
          .at_least(0),
      glimpse::ParamSpec::choice("identifiability", "last_row_zero", {"last_row_zero", "none"},
                                 "logistic: fix the last class's row at 0, or optimise all K rows"),
      glimpse::ParamSpec::real("tolerance", "1e-6", "logistic: a refit stops when ||gradient||_inf <= tolerance")
          .above(0),
      glimpse::ParamSpec::integer("max_iterations", "100", "logistic: L-BFGS iterations per refit at most").at_least(1),
      glimpse::ParamSpec::real("refit_growth", "0",
                               "logistic: refit when the labelled set has grown by this factor since the last "
                               "refit (0: on every labelled round, as the paper)")
          .at_least(0),
      glimpse::ParamSpec::integer("lbfgs_memory", "10", "logistic: L-BFGS curvature pairs kept").at_least(1)};
  for (auto& p : glimpse::algorithms::cost_params()) params.push_back(std::move(p));
  return params;
}

class CsSelectron final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cs_selectron",
            .kind = glimpse::PluginKind::learner,
            .summary =
                "cost-sensitive GLM (logistic or linear link) refitted on labelled rounds, predicts the least "
                "expected cost",
            .reference =
                "Agarwal, Selective sampling algorithms for cost-sensitive multiclass prediction, ICML 2013, "
                "sections 3-4; ALGORITHMS.md 7",
            .params = selectron_params(),
            .accepts = {glimpse::FeedbackKind::label}};
  }
  explicit CsSelectron(const glimpse::ParamValues& params)
      : logistic_(params.text("link") == "logistic"), gamma_(params.real("gamma")), costs_(params) {
    options_.last_row_zero = params.text("identifiability") == "last_row_zero";
    options_.tolerance = params.real("tolerance");
    options_.max_iterations = static_cast<std::int32_t>(params.integer("max_iterations"));
    options_.refit_growth = params.real("refit_growth");
    options_.memory = static_cast<std::int32_t>(params.integer("lbfgs_memory"));
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    k_ = shape.K;
    costs_.reset(shape.K);
    const double gamma_l = logistic_ ? 1.0 / (std::numbers::e * k_ * k_) : 1.0 - 1.0 / k_;
    const double gamma = gamma_ > 0 ? gamma_ : gamma_l;
    p_.setZero(shape.K);
    if (logistic_) {
      options_.gamma = gamma;
      glm_.reset(shape.K, shape.d, options_, shape.n);
      x_.setZero(shape.d);
    } else {
      inverse_.reset(shape.d, 2.0 * gamma);
      b_.setZero(shape.K, shape.d);
      v_.setZero(shape.K);
    }
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    if (logistic_) {
      x.to_dense(x_);
      glm_.probabilities(x_, p_);
    } else {
      last_r_ = inverse_.quadratic(x);
      v_.noalias() = b_ * inverse_.last_product();
      const double shift = (v_.sum() - 1.0) / k_;
      for (std::int32_t i = 0; i < k_; ++i) p_[i] = v_[i] - shift;
    }
    costs_.scores(p_, pred.scores);
    pred.predicted = glimpse::argmax(pred.scores);
    pred.proposed = pred.predicted;
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    if (logistic_) {
      glm_.add(x_, y);  // x_ is this round's x, loaded by predict()
      return;
    }
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
  bool logistic_;
  double gamma_;
  glimpse::algorithms::CostMatrix costs_;
  glimpse::algorithms::LogisticGlm::Options options_;
  glimpse::algorithms::LogisticGlm glm_;
  glimpse::algorithms::InverseTracker inverse_;
  Eigen::MatrixXd b_;
  Eigen::VectorXd v_, p_, x_;
  std::int32_t k_ = 0;
  double last_r_ = 0.0;
};

}  // namespace

GLIMPSE_PLUGIN(CsSelectron)
