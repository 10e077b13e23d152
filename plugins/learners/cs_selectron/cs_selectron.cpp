// CS-Selectron (Agarwal, ICML 2013): a GLM refitted on the labelled rounds that
// predicts the label of least expected cost, argmax_i S(i) with S(i) = sum_j (C_max - C(j, i)) p_j. The
// scores handed to query rules (DGS) are the S(i).
//   logistic link: p = softmax(W x), W minimising the regularised log-loss over the labelled rounds by
//     warm-started L-BFGS after every labelled round (LogisticGlm: tolerance,
//     iteration cap, optional geometric refit schedule), or updated by an Online Newton Step (solver = ons);
//   linear link: p_i = v_i - (sum_j v_j - 1)/K with v = W x, and the exact refit W = B (A + 2 gamma I)^{-1},
//     A = sum x x^T and B = sum (e_y - 1/K) x^T over the labelled rounds, (A + 2 gamma I)^{-1} kept by
//     Sherman-Morrison (O(d^2) a round).
// Safety switch (P1 section 4.3; `safety = true`): whenever the query rule asks for x_t the
// learner also asks for x_{t+1}, whatever the rule says of it, so those rounds form a random subsample S. A
// second, passive model learns from S only; on S both models' progressive losses are summed, and once
//   L_act / N >= L_pas / N + c [d / (N gamma_l) log(R^2 gamma_l T / gamma + 1) + R omega / (N gamma_l) log(1/delta)]
// (N = |S|, T = the dataset's rows) the learner predicts with the passive model for the rest of the run. The
// active model learns only from the rounds its rule chose. Both keep learning after a switch.
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/algorithms/selective_theory.hpp>
#include <glimpse/glimpse.hpp>

#include "logistic_glm.hpp"

namespace {

// One GLM under either link, refitted on the (x, y) it is given: the active learner, or the passive one of
// the safety switch.
class GlmModel {
 public:
  void reset(const glimpse::ProblemShape& shape, bool logistic, double gamma,
             glimpse::algorithms::LogisticGlm::Options options,
             const glimpse::algorithms::SecondOrderOptions& second_order) {
    logistic_ = logistic;
    k_ = shape.K;
    if (logistic_) {
      options.gamma = gamma;
      glm_.reset(shape.K, shape.d, options, shape.n);
    } else {
      inverse_.reset(shape.d, 2.0 * gamma, second_order, "cs_selectron's link linear");
      b_.setZero(shape.K, shape.d);
      v_.setZero(shape.K);
    }
  }

  // p(y|x) under the model; `dense` is x densified (the logistic link reads it).
  void probabilities(const glimpse::Instance& x, const Eigen::VectorXd& dense, Eigen::VectorXd& p) {
    if (logistic_) {
      glm_.probabilities(dense, p);
      return;
    }
    last_r_ = inverse_.quadratic(x);
    v_.noalias() = b_ * inverse_.last_product();
    const double shift = (v_.sum() - 1.0) / k_;
    for (std::int32_t i = 0; i < k_; ++i) p[i] = v_[i] - shift;
  }

  // The surrogate loss l(W x, y) = Phi(W x) - (W x)_y of the x of the last probabilities() call.
  double last_loss(std::int32_t y) const {
    if (logistic_) return glm_.last_loss(y);
    const double excess = v_.sum() - 1.0;
    return 0.5 * v_.squaredNorm() - excess * excess / (2.0 * k_) - v_[y];
  }

  // Learns (x, y); x must be the x of the last probabilities() call.
  void add(const glimpse::Instance& x, const Eigen::VectorXd& dense, std::int32_t y) {
    if (logistic_) {
      glm_.add(dense, y);
      return;
    }
    inverse_.add_last(last_r_);  // (A + 2 gamma I)^{-1} with this x added; probabilities() computed its parts
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
  bool logistic_ = true;
  std::int32_t k_ = 0;
  glimpse::algorithms::LogisticGlm glm_;
  glimpse::algorithms::SecondOrder<double> inverse_;  // (A + 2 gamma I)^{-1}, exact or sketched
  Eigen::MatrixXd b_;
  Eigen::VectorXd v_;
  double last_r_ = 0.0;
};

class CsSelectron final : public glimpse::Learner, public glimpse::LabelBuyer, public glimpse::RunReporter {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cs_selectron",
            .kind = glimpse::PluginKind::learner,
            .revision = 4,  // 2: the logistic refit starts from the tracked gradient, passes are matrix products;
                            // 3: M^{-1} (and the ONS Gram inverse) in the shared packed second-order state;
                            // 4: second_order sketch: a sketch_rank >= d keeps the exact inverse, default rank 20
            .summary =
                "cost-sensitive GLM (logistic or linear link) refitted on labelled rounds, predicts the least "
                "expected cost; optional safety switch to a passive model",
            .reference =
                "Agarwal, Selective sampling algorithms for cost-sensitive multiclass prediction, ICML 2013, "
                "sections 3-4",
            .params = declared_params(),
            .accepts = {glimpse::FeedbackKind::label}};
  }
  // The cost matrix reads its own parameters (cost_params(), shared with the regret metric); the others are bound.
  explicit CsSelectron(const glimpse::ParamValues& params) : costs_(params) {}
  void configure() { options_.last_row_zero = identifiability_ == Identifiability::last_row_zero; }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t) override {
    costs_.reset(shape.K);
    const double gamma_l = glimpse::algorithms::link_gamma_l(logistic(), shape.K);
    const double gamma = gamma_ > 0 ? gamma_ : gamma_l;
    active_.reset(shape, logistic(), gamma, options_, second_order_);
    if (safety_) passive_.reset(shape, logistic(), gamma, options_, second_order_);
    // The switching margin is margin_scale_ / N: c [d / gamma_l log(R^2 gamma_l T / gamma + 1) + R omega / gamma_l
    // log(1 / delta)], T = the dataset's rows.
    margin_scale_ =
        safety_c_ / gamma_l *
        (shape.d * std::log(safety_radius_ * safety_radius_ * gamma_l * static_cast<double>(shape.n) / gamma + 1.0) +
         safety_radius_ * safety_omega_ * std::log(1.0 / safety_delta_));
    p_.setZero(shape.K);
    passive_p_.setZero(shape.K);
    x_.setZero(shape.d);
    round_ = 0;
    audit_next_ = audit_now_ = false;
    rule_queries_ = true;
    audits_ = 0;
    loss_active_ = loss_passive_ = 0.0;
    switch_round_ = 0;
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    ++round_;
    rule_queries_ = true;  // runs without a query rule never call wants_label(): every label is the rule's
    audit_now_ = false;
    score(x, pred);
  }

  void evaluate(const glimpse::Instance& x, glimpse::Prediction& pred) override { score(x, pred); }

  bool wants_label(bool rule_queries) override {
    if (!safety_) return false;
    rule_queries_ = rule_queries;
    audit_now_ = audit_next_;  // chosen last round, without looking at this x: S stays a random subsample
    audit_next_ = rule_queries;
    return audit_now_;
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0) return;
    // x_ (and the linear link's parts) still hold this round's x: predict() computed them.
    if (audit_now_) audit(x, y);
    if (rule_queries_) active_.add(x, x_, y);
  }

  void report(glimpse::MetricResults& out) const override {
    if (!safety_) return;
    out.scalars.push_back({"safety_audits", static_cast<double>(audits_)});
    out.scalars.push_back({"safety_loss_active", audits_ > 0 ? loss_active_ / static_cast<double>(audits_) : 0.0});
    out.scalars.push_back({"safety_loss_passive", audits_ > 0 ? loss_passive_ / static_cast<double>(audits_) : 0.0});
    out.scalars.push_back({"safety_switch_round", static_cast<double>(switch_round_)});  // 0: never switched
  }

 private:
  static std::vector<glimpse::ParamSpec> declared_params() {
    std::vector<glimpse::ParamSpec> params{
        glimpse::ParamSpec::choice("link", "logistic", {"logistic", "linear"},
                                   "the GLM link: multinomial logit, or linear (closed-form refit)")
            .into(&CsSelectron::link_),
        glimpse::ParamSpec::real("gamma", "0",
                                 "regularisation gamma; 0 means gamma_l of the link: 1/(e K^2) logistic, 1 - 1/K "
                                 "linear")
            .at_least(0)
            .into(&CsSelectron::gamma_),
        glimpse::algorithms::second_order_param(&CsSelectron::second_order_),
        glimpse::algorithms::sketch_rank_param(&CsSelectron::second_order_),
        glimpse::ParamSpec::choice("identifiability", "last_row_zero", {"last_row_zero", "none"},
                                   "logistic: fix the last class's row at 0, or optimise all K rows")
            .into(&CsSelectron::identifiability_),
        glimpse::ParamSpec::real("tolerance", "1e-6", "logistic: a refit stops when ||gradient||_inf <= tolerance")
            .above(0)
            .into(&CsSelectron::options_, &Options::tolerance),
        glimpse::ParamSpec::integer("max_iterations", "100", "logistic: L-BFGS iterations per refit at most")
            .at_least(1)
            .into(&CsSelectron::options_, &Options::max_iterations),
        glimpse::ParamSpec::real("refit_growth", "0",
                                 "logistic: refit when the labelled set has grown by this factor since the last "
                                 "refit (0: on every labelled round, as the paper)")
            .at_least(0)
            .into(&CsSelectron::options_, &Options::refit_growth),
        glimpse::ParamSpec::integer("lbfgs_memory", "10", "logistic: L-BFGS curvature pairs kept")
            .at_least(1)
            .into(&CsSelectron::options_, &Options::memory),
        glimpse::ParamSpec::choice("solver", "lbfgs", {"lbfgs", "ons"},
                                   "logistic: lbfgs refits eq. 9 exactly (to the tolerance); ons takes one Online "
                                   "Newton Step per labelled round (cheap, not the exact minimiser)")
            .into(&CsSelectron::options_, &Options::solver),
        glimpse::ParamSpec::boolean("safety", false,
                                    "P1's safety switch: also label the round after each query, train a passive "
                                    "model on those, switch to it when the active model's loss there is worse by "
                                    "the paper's margin")
            .into(&CsSelectron::safety_),
        glimpse::ParamSpec::real("safety_c", "1", "safety: the constant c of the switching margin")
            .at_least(0)
            .into(&CsSelectron::safety_c_),
        glimpse::ParamSpec::real("safety_delta", "0.05", "safety: delta in the margin's log(1/delta)")
            .above(0)
            .below(1)
            .into(&CsSelectron::safety_delta_),
        glimpse::ParamSpec::real("safety_radius", "1", "safety: R, a bound on ||x||")
            .above(0)
            .into(&CsSelectron::safety_radius_),
        glimpse::ParamSpec::real("safety_omega", "1", "safety: omega, a bound on the norm of each row of W")
            .above(0)
            .into(&CsSelectron::safety_omega_)};
    for (auto& p : glimpse::algorithms::cost_params()) params.push_back(std::move(p));
    return params;
  }

  // Scores from the model in use; changes no round state (also serves held-out evaluation).
  void score(const glimpse::Instance& x, glimpse::Prediction& pred) {
    if (logistic()) x.to_dense(x_);
    active_.probabilities(x, x_, p_);
    if (switched()) passive_.probabilities(x, x_, passive_p_);
    costs_.scores(switched() ? passive_p_ : p_, pred.scores);
    pred.predicted = glimpse::argmax(pred.scores);
    pred.proposed = pred.predicted;
  }

  // A round of the random subsample S: both models' losses before seeing y, the passive model learns, and the
  // switching test.
  void audit(const glimpse::Instance& x, std::int32_t y) {
    if (!switched()) passive_.probabilities(x, x_, passive_p_);  // a switched score() has computed it already
    loss_active_ += active_.last_loss(y);
    loss_passive_ += passive_.last_loss(y);
    ++audits_;
    passive_.add(x, x_, y);
    if (switched()) return;
    const double n = static_cast<double>(audits_);
    if (loss_active_ / n >= loss_passive_ / n + margin_scale_ / n) switch_round_ = round_;
  }
  bool switched() const noexcept { return switch_round_ > 0; }
  bool logistic() const noexcept { return link_ == Link::logistic; }

  using Options = glimpse::algorithms::LogisticGlm::Options;
  enum class Link { logistic, linear };                // the choices' order
  enum class Identifiability { last_row_zero, none };  // the choices' order
  Link link_ = Link::logistic;
  Identifiability identifiability_ = Identifiability::last_row_zero;
  double gamma_ = 0;
  bool safety_ = false;
  double safety_c_ = 1, safety_delta_ = 0.05, safety_radius_ = 1, safety_omega_ = 1;
  glimpse::algorithms::CostMatrix costs_;
  glimpse::algorithms::LogisticGlm::Options options_;
  glimpse::algorithms::SecondOrderOptions second_order_;  // link linear's (A + 2 gamma I)^{-1}
  GlmModel active_, passive_;
  Eigen::VectorXd p_, passive_p_, x_;
  std::int64_t round_ = 0;
  double margin_scale_ = 0.0;
  // Safety switch state: whether this round and the next are audited, whether the rule asked this round.
  bool audit_next_ = false, audit_now_ = false, rule_queries_ = true;
  std::int64_t audits_ = 0, switch_round_ = 0;
  double loss_active_ = 0.0, loss_passive_ = 0.0;
};

}  // namespace

GLIMPSE_PLUGIN(CsSelectron)
