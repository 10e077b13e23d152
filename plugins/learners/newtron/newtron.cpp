// Newtron (Hazan & Kale, NeurIPS 2011) in its diagonal practical form, PNewtron, as the public codes run it
// (bahh723/separable-bandit-classification newtron_diag_train.m and Caoang327's
// replication): proposals drawn from p' = (1 - gamma) softmax(alpha W x) + gamma/K; an unbiased estimate delta of
// the log-loss gradient (its expectation over the proposal is (p - e_y) x^T), and a diagonal Online Newton Step
// in FTRL form: A += kappa beta delta o delta, b += (1 - kappa beta delta . W) delta, W = -b / A, with A starting
// at I / D. The estimator's scale is the replication's (the MATLAB code's is 2/K times it). `projection ball`
// keeps ||W||_F <= D by scaling W back to the ball (Euclidean; the paper's projection is presumably in the A-norm,
// its body could not be read here); by default none is made, as in the replication (the MATLAB code rescales to
// the sphere), and a large beta can then diverge.
#include <algorithm>
#include <cmath>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>
#include <vector>

namespace {

template <class T>
class Newtron final : public glimpse::Learner {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

 public:
  static glimpse::PluginSpec spec() {
    return {.name = "newtron",
            .kind = glimpse::PluginKind::learner,
            .summary = "PNewtron: softmax exploration, diagonal Online Newton Step on an unbiased log-loss gradient",
            .reference = "Hazan & Kale, NeurIPS 2011, diagonal form as in the public codes",
            .params = {glimpse::ParamSpec::real("gamma", "0.01", "uniform exploration mixed in (gamma)")
                           .above(0)
                           .at_most(1)
                           .into(&Newtron::gamma_),
                       glimpse::ParamSpec::real("alpha", "10", "softmax inverse temperature of the log-loss (alpha)")
                           .above(0)
                           .into(&Newtron::alpha_),
                       glimpse::ParamSpec::real("beta", "0.01", "curvature of the quadratic surrogate (beta)")
                           .above(0)
                           .into(&Newtron::beta_),
                       glimpse::ParamSpec::real("D", "1", "A starts at I / D (D: the comparator's norm bound)")
                           .above(0)
                           .into(&Newtron::radius_),
                       glimpse::ParamSpec::choice("projection", "none", {"none", "ball"},
                                                  "ball: W scaled back to ||W||_F <= D after each update")
                           .into(&Newtron::projection_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t seed) override {
    model_.reset(shape.K, shape.d, glimpse::WeightLayout::class_major);
    b_.setZero(shape.K, shape.d);
    a_.setConstant(shape.K, shape.d, static_cast<T>(1 / radius_));
    softmax_.assign(static_cast<std::size_t>(shape.K), 0.0);
    mixed_.assign(static_cast<std::size_t>(shape.K), 0.0);
    coefficients_.assign(static_cast<std::size_t>(shape.K), 0.0);
    rng_.reseed(seed);
    squared_norm_ = 0;
    scale_ = 1;
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    scored(x, pred);
    const auto k = static_cast<double>(softmax_.size());
    const double top = pred.scores[static_cast<std::size_t>(pred.predicted)];
    double total = 0;
    for (std::size_t i = 0; i < softmax_.size(); ++i) total += softmax_[i] = std::exp(alpha_ * (pred.scores[i] - top));
    for (std::size_t i = 0; i < softmax_.size(); ++i) {
      softmax_[i] /= total;
      mixed_[i] = (1 - gamma_) * softmax_[i] + gamma_ / k;
    }
    pred.proposed = rng_.sample(mixed_);
  }
  void evaluate(const glimpse::Instance& x, glimpse::Prediction& pred) override { scored(x, pred); }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const auto* answer = std::get_if<glimpse::CorrectnessFeedback>(&feedback);
    if (!answer) return;
    // delta = c (u) x^T with a K-vector c; kappa weights the round's curvature.
    const std::int32_t shown = pred.proposed;
    const auto s = static_cast<std::size_t>(shown);
    const double k = static_cast<double>(coefficients_.size());
    double kappa = 1;
    if (answer->correct) {  // y = shown: c = (1 - p(y))/p'(y) (1/K - e_y)
      const double scale = (1 - softmax_[s]) / mixed_[s];
      for (auto& c : coefficients_) c = scale / k;
      coefficients_[s] -= scale;
      kappa = mixed_[s];
    } else {  // c = p(y~)/p'(y~) (e_y~ - 1/K)
      const double scale = softmax_[s] / mixed_[s];
      for (auto& c : coefficients_) c = -scale / k;
      coefficients_[s] += scale;
    }
    // delta . W = sum_i c_i (w_i . x) = c . scores
    double delta_dot_w = 0;
    for (std::size_t i = 0; i < coefficients_.size(); ++i) delta_dot_w += coefficients_[i] * pred.scores[i];
    const double curvature = kappa * beta_, linear = 1 - curvature * delta_dot_w;
    auto& w = model_.weights();
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(coefficients_.size()); ++i) {
      const double c = coefficients_[static_cast<std::size_t>(i)];
      if (c == 0) continue;
      x.for_each_stored([&](std::int32_t j, double v) {
        const double delta = c * v;
        a_(i, j) += static_cast<T>(curvature * delta * delta);
        b_(i, j) += static_cast<T>(linear * delta);
        if (projection_ == Projection::ball) squared_norm_ -= static_cast<double>(w(i, j)) * w(i, j);
        w(i, j) = -b_(i, j) / a_(i, j);
        if (projection_ == Projection::ball) squared_norm_ += static_cast<double>(w(i, j)) * w(i, j);
      });
    }
    if (projection_ == Projection::ball) {
      const double norm = std::sqrt(std::max(squared_norm_, 0.0));
      scale_ = norm > radius_ ? radius_ / norm : 1.0;
    }
  }

 private:
  // Scores of the projected W = scale_ * (-b / A): the model keeps the unprojected weights and their squared norm
  // (updated per coordinate), so the projection costs nothing per round. Scaling keeps the argmax.
  void scored(const glimpse::Instance& x, glimpse::Prediction& pred) {
    model_.predict_greedy(x, pred);
    if (scale_ != 1)
      for (auto& s : pred.scores) s *= scale_;
  }

  enum class Projection { none, ball };  // the choices' order
  double gamma_ = 0.01, alpha_ = 10, beta_ = 0.01, radius_ = 1;
  Projection projection_ = Projection::none;
  double squared_norm_ = 0, scale_ = 1;
  glimpse::LinearModel<T> model_;
  Matrix a_, b_;
  std::vector<double> softmax_, mixed_, coefficients_;
  glimpse::Rng rng_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Newtron)
