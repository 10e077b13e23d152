// SquareCB (Foster & Rakhlin, ICML 2020) as Vowpal Wabbit runs it with `--cbify K --cb_explore_adf --squarecb`
//: one linear regressor of the cost (0 right, 1 wrong) per class, inverse gap weighting
// over the estimated costs with gamma = gamma_scale * n^gamma_exponent (n = updates so far, so the first
// proposal is uniform), and a squared-loss step on the proposed class's regressor only, without importance
// weights (VW's MTR sets the logged probability to 1). The regression step is AdaGrad per coordinate by default,
// plain gradient descent, VW's own default step (`normalized`: adaptive, normalised and importance-invariant,
// algorithms/normalized_step.hpp), which also keeps the cost estimates within the costs seen, as VW does, or
// (`ridge`, not in VW) online ridge regression per class: the exact least-squares fit of the class's costs so far,
// w_a = (lambda I + sum x x^T)^{-1} sum c x over the rounds it was proposed, the regression oracle for linear
// classes in Foster & Rakhlin's analysis (regret O(d log T) per class); O(d^2) per round, for small d.
#include <algorithm>
#include <cmath>
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/algorithms/normalized_step.hpp>
#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>
#include <limits>
#include <vector>

namespace {

template <class T>
class SquareCb final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "squarecb",
        .kind = glimpse::PluginKind::learner,
        .revision = 4,  // 2: update "normalized" sums a dense row in 16 partial sums; 3: "ridge" keeps its inverses in
                        // the shared packed second-order state, in the learner's precision; 4: second_order sketch: a
                        // sketch_rank >= d keeps the exact inverse, default rank 20
        .summary = "SquareCB: inverse gap weighting over per-class online least-squares cost estimates",
        .reference = "Foster & Rakhlin, ICML 2020, as in Vowpal Wabbit's cb_explore_adf_squarecb (README.md here)",
        .params =
            {glimpse::ParamSpec::real("gamma_scale", "10", "gamma_0 in gamma_t = gamma_0 t^p")
                 .at_least(0)
                 .into(&SquareCb::gamma_scale_),
             glimpse::ParamSpec::real("gamma_exponent", "0.5", "p in gamma_t = gamma_0 t^p")
                 .at_least(0)
                 .into(&SquareCb::gamma_exponent_),
             glimpse::ParamSpec::real("eta", "0.5", "step size of the cost regression").above(0).into(&SquareCb::eta_),
             glimpse::ParamSpec::choice("update", "adagrad", {"adagrad", "sgd", "normalized", "ridge"},
                                        "adagrad: eta g_j / sqrt(sum of g_j^2); sgd: eta g; normalized: "
                                        "VW's default step (AdaGrad scaled by each feature's largest "
                                        "|x_j| so far, importance-invariant), estimates clipped to the "
                                        "costs seen; ridge: online ridge regression per class (exact "
                                        "least squares, d x d matrix per class, eta unused), estimates "
                                        "clipped to [0, 1]")
                 .into(&SquareCb::update_),
             glimpse::ParamSpec::real("lambda", "1",
                                      "lambda in w_a = (lambda I + sum x x^T)^{-1} sum c x "
                                      "(update ridge only)")
                 .above(0)
                 .into(&SquareCb::lambda_),
             glimpse::algorithms::second_order_param(&SquareCb::second_order_),
             glimpse::algorithms::sketch_rank_param(&SquareCb::second_order_), glimpse::precision_param()},
        .accepts = {glimpse::FeedbackKind::correctness}};
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t seed) override {
    costs_.reset(shape.K, shape.d, glimpse::WeightLayout::class_major);
    if (update_ == Update::adagrad) squared_gradients_.setZero(shape.K, shape.d);
    if (update_ == Update::normalized) normalized_step_.reset(shape.K, shape.d);
    if (update_ == Update::ridge) {
      inverse_gram_.resize(static_cast<std::size_t>(shape.K));
      for (auto& inverse : inverse_gram_) inverse.reset(shape.d, lambda_, second_order_, "squarecb's update ridge");
    }
    clipped_.resize(shape.K);
    explore_.reset(shape.K);
    rng_.reseed(seed);
    updates_ = 0;
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    const auto& cost = estimated_costs(x);
    fill_scores(cost, pred);
    const double gamma = updates_ == 0 ? 0.0 : gamma_scale_ * std::pow(static_cast<double>(updates_), gamma_exponent_);
    pred.proposed = explore_.propose(cost, gamma, rng_);
  }
  void evaluate(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    fill_scores(estimated_costs(x), pred);
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer) return;
    ++updates_;
    const std::int32_t a = pred.proposed;
    const double cost = answer->correct ? 0.0 : 1.0;
    if (update_ == Update::normalized)
      return normalized_step_.step(costs_.weights(), a, x, static_cast<double>(costs_.row_dot(a, x)), cost, eta_);
    if (update_ == Update::ridge) return ridge_step(a, x, cost);
    const T residual = static_cast<T>(-pred.scores[static_cast<std::size_t>(a)] - cost);
    if (residual == T{0}) return;
    if (update_ == Update::sgd) {
      costs_.add_to_row(a, static_cast<T>(-eta_) * residual, x);
      return;
    }
    const T eta = static_cast<T>(eta_);
    if (!x.sparse) {
      // The sparse loop below without its branch, so that it vectorises (built with -fno-math-errno, which lets a
      // sqrt vectorise and changes no result): a zero gradient adds 0 to its sum and steps by
      // 0 / sqrt(max(sum, smallest normal)) = 0, the max only keeping an unused coordinate's 0 / 0 away. Not
      // Eigen's array sqrt: its fast-math default is an rsqrt estimate on AVX-512, 1-2 bits off the correct root.
      T* w = costs_.weights().row(a).data();
      T* squares = squared_gradients_.row(a).data();
      for (std::int32_t j = 0; j < x.dim; ++j) {
        const T g = residual * static_cast<T>(x.values[j]);
        squares[j] += g * g;
        w[j] -= eta * g / std::sqrt(std::max(squares[j], std::numeric_limits<T>::min()));
      }
      return;
    }
    auto row = costs_.weights().row(a);
    auto squares = squared_gradients_.row(a);
    x.for_each_stored([&](std::int32_t j, glimpse::Feature v) {
      const T g = residual * static_cast<T>(v);
      if (g == T{0}) return;
      squares[j] += g * g;
      row[j] -= eta * g / std::sqrt(squares[j]);
    });
  }

 private:
  enum class Update { adagrad, sgd, normalized, ridge };  // the choices' order

  using Costs = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  // With `normalized`, clipped to [lowest, highest cost seen] (both start at 0), as VW's scorer clips a
  // regression's prediction to the labels seen; with `ridge`, to the cost range [0, 1].
  const Costs& estimated_costs(const glimpse::Instance& x) {
    const Costs& cost = costs_.compute_scores(x);
    if (update_ == Update::normalized)
      clipped_ = cost.unaryExpr([this](T c) { return static_cast<T>(normalized_step_.clip(static_cast<double>(c))); });
    else if (update_ == Update::ridge)
      clipped_ = cost.cwiseMax(T{0}).cwiseMin(T{1});
    else
      return cost;
    return clipped_;
  }

  // Recursive least squares: with p = M^{-1} x and r = x^T p before M <- M + x x^T, the new fit is
  // w + p (c - w.x) / (1 + r) (Sherman-Morrison applied to w = M^{-1} sum c x).
  // With the sketch, M^{-1} x is the sketched M's, so the step is the recursive least-squares step of an
  // approximate Gram matrix (as in sketched online Newton methods), not the exact fit.
  void ridge_step(std::int32_t a, const glimpse::Instance& x, double cost) {
    auto& inverse = inverse_gram_[static_cast<std::size_t>(a)];
    const double r = inverse.quadratic(x);
    const double gain = (cost - static_cast<double>(costs_.row_dot(a, x))) / (1.0 + r);
    costs_.weights().row(a) += static_cast<T>(gain) * inverse.last_product().transpose();
    inverse.add_last(r);
  }

  // Scores are negated costs, so the greedy label (argmax, lowest index on ties) is the cheapest one.
  static void fill_scores(const Costs& cost, glimpse::Prediction& pred) {
    for (std::int32_t a = 0; a < static_cast<std::int32_t>(cost.size()); ++a)
      pred.scores[static_cast<std::size_t>(a)] = -static_cast<double>(cost[a]);
    pred.predicted = glimpse::argmax(pred.scores);
  }

  double gamma_scale_ = 10, gamma_exponent_ = 0.5, eta_ = 0.5, lambda_ = 1;
  Update update_ = Update::adagrad;
  glimpse::LinearModel<T> costs_;
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> squared_gradients_;
  glimpse::algorithms::NormalizedLeastSquares<T> normalized_step_;
  std::vector<glimpse::algorithms::SecondOrder<T>> inverse_gram_;  // per class, under `ridge`
  glimpse::algorithms::SecondOrderOptions second_order_;
  Costs clipped_;  // the clipped estimates predict() returns under `normalized` and `ridge`
  glimpse::algorithms::InverseGapWeighting explore_;
  glimpse::Rng rng_;
  std::int64_t updates_ = 0;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(SquareCb)
