// SquareCB (Foster & Rakhlin, ICML 2020) as Vowpal Wabbit runs it with `--cbify K --cb_explore_adf --squarecb`
// (MODERN_BANDITS.md 5): one linear regressor of the cost (0 right, 1 wrong) per class, inverse gap weighting
// over the estimated costs with gamma = gamma_scale * n^gamma_exponent (n = updates so far, so the first
// proposal is uniform), and a squared-loss step on the proposed class's regressor only, without importance
// weights (VW's MTR sets the logged probability to 1). The regression step is AdaGrad per coordinate by default,
// plain gradient descent, or VW's own default step (`normalized`: adaptive, normalised and importance-invariant,
// algorithms/normalized_step.hpp), which also keeps the cost estimates within the costs seen, as VW does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <glimpse/algorithms/exploration.hpp>
#include <glimpse/algorithms/normalized_step.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class SquareCb final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "squarecb",
            .kind = glimpse::PluginKind::learner,
            .revision = 2,  // 2: update "normalized" sums a dense row in 16 partial sums
            .summary = "SquareCB: inverse gap weighting over per-class online least-squares cost estimates",
            .reference = "Foster & Rakhlin, ICML 2020, as in Vowpal Wabbit's cb_explore_adf_squarecb; "
                         "MODERN_BANDITS.md 5",
            .params = {glimpse::ParamSpec::real("gamma_scale", "10", "gamma_0 in gamma_t = gamma_0 t^p").at_least(0),
                       glimpse::ParamSpec::real("gamma_exponent", "0.5", "p in gamma_t = gamma_0 t^p").at_least(0),
                       glimpse::ParamSpec::real("eta", "0.5", "step size of the cost regression").above(0),
                       glimpse::ParamSpec::choice("update", "adagrad", {"adagrad", "sgd", "normalized"},
                                                  "adagrad: eta g_j / sqrt(sum of g_j^2); sgd: eta g; normalized: "
                                                  "VW's default step (AdaGrad scaled by each feature's largest "
                                                  "|x_j| so far, importance-invariant), estimates clipped to the "
                                                  "costs seen"),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
  explicit SquareCb(const glimpse::ParamValues& params)
      : gamma_scale_(params.real("gamma_scale")),
        gamma_exponent_(params.real("gamma_exponent")),
        eta_(params.real("eta")),
        adagrad_(params.text("update") == "adagrad"),
        normalized_(params.text("update") == "normalized") {}

  void reset(const glimpse::ProblemShape& shape, std::uint64_t seed) override {
    costs_.reset(shape.K, shape.d, glimpse::WeightLayout::class_major);
    if (adagrad_) squared_gradients_.setZero(shape.K, shape.d);
    if (normalized_) {
      normalized_step_.reset(shape.K, shape.d);
      clipped_.resize(shape.K);
    }
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
    if (normalized_)
      return normalized_step_.step(costs_.weights(), a, x, static_cast<double>(costs_.row_dot(a, x)),
                                   answer->correct ? 0.0 : 1.0, eta_);
    const T residual = static_cast<T>(-pred.scores[static_cast<std::size_t>(a)] - (answer->correct ? 0.0 : 1.0));
    if (residual == T{0}) return;
    if (!adagrad_) {
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
  using Costs = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  // With `normalized`, clipped to [lowest, highest cost seen] (both start at 0), as VW's scorer clips a
  // regression's prediction to the labels seen.
  const Costs& estimated_costs(const glimpse::Instance& x) {
    const Costs& cost = costs_.compute_scores(x);
    if (!normalized_) return cost;
    clipped_ = cost.unaryExpr([this](T c) { return static_cast<T>(normalized_step_.clip(static_cast<double>(c))); });
    return clipped_;
  }

  // Scores are negated costs, so the greedy label (argmax, lowest index on ties) is the cheapest one.
  static void fill_scores(const Costs& cost, glimpse::Prediction& pred) {
    for (std::int32_t a = 0; a < static_cast<std::int32_t>(cost.size()); ++a)
      pred.scores[static_cast<std::size_t>(a)] = -static_cast<double>(cost[a]);
    pred.predicted = glimpse::argmax(pred.scores);
  }

  double gamma_scale_, gamma_exponent_, eta_;
  bool adagrad_, normalized_;
  glimpse::LinearModel<T> costs_;
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> squared_gradients_;
  glimpse::algorithms::NormalizedLeastSquares<T> normalized_step_;
  Costs clipped_;  // the clipped estimates predict() returns under `normalized`
  glimpse::algorithms::InverseGapWeighting explore_;
  glimpse::Rng rng_;
  std::int64_t updates_ = 0;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(SquareCb)
