// PS3VT (P3, Alg. 1): a linear multiclass model W (d x K, column k scores class k) fitted on a
// labelled and an unlabelled part by proximal stochastic sub-gradient steps on
//   J(W) = 1/n sum_i [1 - (h(x_i)_{y_i} - max_{y' != y_i} h(x_i)_{y'})]_+ + tau_A ||W||_F^2
//          + tau_I tr(W^T X L X^T W) + tau_S sum_{j > theta} lambda_j(W),
// each step followed by generalised singular value thresholding of the tail beyond theta (P3 Prop. 1) and a
// projection onto the unit ball. The special cases of P3's Table 2 are presets of the same learner (`variant`):
// linear_mc (tau_I = tau_S = 0), lrc_mc (tau_I = 0), ss_mc (tau_S = 0).
// P3 lists its step-size grid as "mu in {10, ..., 1e5}" next to an update W - (1/mu) G: we read the grid as mu,
// so steps are 1e-5 .. 0.1 (steps of 10 .. 1e5 would make every iterate the projected last sub-gradient).
// The ball's radius R (P3: 1) is a parameter because against a fixed radius the features' scale, which P3 does not
// state, decides how far the margins can grow: it is the same as scaling the features (see `radius`).
// `schedule`, `sampling`, `passes` and `thresholded` can instead follow what the authors' published code does
// (ps3vt_multi_train.m, read in docs/reproducing.md, "The PS3VT paper's code"): steps mu/(t + n), passes over a fresh
// permutation, and the thresholding of the *leading* singular values.
#include <Eigen/Dense>
#include <cmath>
#include <glimpse/glimpse.hpp>
#include <limits>
#include <vector>

#include "knn_graph.hpp"
#include "singular_value_threshold.hpp"

namespace {

using glimpse::ParamSpec;

class Ps3vt final : public glimpse::BatchLearner {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "ps3vt",
        .kind = glimpse::PluginKind::learner,
        .revision = 3,  // 2: the tail thresholding through the smaller Gram matrix's eigen-decomposition; 3: radius
                       // (the options added since keep their defaults' arithmetic)
        .summary =
            "semi-supervised linear multiclass hinge with a graph-Laplacian term and singular value "
            "thresholding of W's tail (batch); variants linear_mc, lrc_mc, ss_mc",
        .reference = "P3 (PS3VT), Algorithm 1, Proposition 1, Table 2",
        .params =
            {ParamSpec::choice("variant", "ps3vt", {"ps3vt", "linear_mc", "lrc_mc", "ss_mc"},
                               "ps3vt, or a special case: linear_mc sets tau_I = tau_S = 0, lrc_mc "
                               "tau_I = 0, ss_mc tau_S = 0")
                 .into(&Ps3vt::variant_),
             ParamSpec::real("tau_A", "1e-8", "Frobenius regularisation tau_A").at_least(0).into(&Ps3vt::tau_a_),
             ParamSpec::real("tau_I", "1e-8", "graph-Laplacian (manifold) regularisation tau_I")
                 .at_least(0)
                 .into(&Ps3vt::tau_i_),
             ParamSpec::real("tau_S", "1e-4", "weight of the tail sum of singular values tau_S")
                 .at_least(0)
                 .into(&Ps3vt::tau_s_),
             ParamSpec::real("mu", "100", "the step is 1/mu (P3's grid for mu: 10 .. 1e5)").above(0).into(&Ps3vt::mu_),
             ParamSpec::real("theta", "0.7",
                             "tail start as a fraction f of min(K, d): theta = clamp(floor(f min(K, d)), "
                             "1, min(K, d))")
                 .above(0)
                 .at_most(1)
                 .into(&Ps3vt::theta_fraction_),
             ParamSpec::integer("iterations", "0", "iterations T (0: `passes` times the labelled points)")
                 .at_least(0)
                 .into(&Ps3vt::iterations_),
             ParamSpec::integer("passes", "20", "T in passes over the labelled points, when iterations is 0")
                 .at_least(1)
                 .into(&Ps3vt::passes_),
             ParamSpec::choice("mode", "sgd", {"sgd", "gd"},
                               "sgd: one labelled point per iteration (P3 Alg. 1); gd: the mean "
                               "sub-gradient over all labelled points")
                 .into(&Ps3vt::mode_),
             ParamSpec::choice("schedule", "constant", {"constant", "decaying"},
                               "the step at iteration t: constant 1/mu, or mu/(t + n) with n labelled points "
                               "(the authors' code)")
                 .into(&Ps3vt::schedule_),
             ParamSpec::choice("sampling", "uniform", {"uniform", "epochs"},
                               "sgd's point per iteration: uniform with replacement, or each pass a fresh "
                               "permutation of the labelled points (the authors' code)")
                 .into(&Ps3vt::sampling_),
             ParamSpec::choice("thresholded", "tail", {"tail", "leading"},
                               "which singular values tau_S shrinks: the tail beyond theta (P3 Prop. 1), or the "
                               "theta largest (the authors' code)")
                 .into(&Ps3vt::thresholded_),
             ParamSpec::choice("norm", "frobenius", {"frobenius", "spectral"},
                               "the norm of the projection W <- min(1, R/||W||) W")
                 .into(&Ps3vt::norm_),
             ParamSpec::real("radius", "1",
                             "R, the radius of that ball (P3: 1); features scaled by c are the same fit as R = c "
                             "with mu/c^2, tau_A/c^2, tau_S/c; 0: 1/sqrt(tau_A) (the authors' code)")
                 .at_least(0)
                 .into(&Ps3vt::radius_),
             ParamSpec::integer("neighbours", "10", "k of the k-NN graph").at_least(1).into(&Ps3vt::neighbours_),
             ParamSpec::choice("bandwidth", "mean_pairwise", {"mean_pairwise", "mean_knn", "mean_kth"},
                               "sigma of the Gaussian weights: mean distance over all pairs, to the k nearest, or "
                               "to the k-th nearest (the authors' code)")
                 .into(&Ps3vt::bandwidth_),
             ParamSpec::choice("edge_weights", "single", {"single", "mutual_doubled"},
                               "a graph edge's weight: S_ij, or 2 S_ij when each point is among the other's k "
                               "nearest (the authors' code)")
                 .into(&Ps3vt::edge_weights_),
             ParamSpec::integer("objective_points", "100",
                                "how many times a fit reports its full objective (evenly spaced)")
                 .at_least(1)
                 .into(&Ps3vt::objective_points_)},
        .batch = true};
  }

  // The special cases switch terms off.
  void configure() {
    if (variant_ == Variant::linear_mc || variant_ == Variant::lrc_mc) tau_i_ = 0.0;
    if (variant_ == Variant::linear_mc || variant_ == Variant::ss_mc) tau_s_ = 0.0;
    if (radius_ == 0.0) {
      if (!(tau_a_ > 0.0)) throw glimpse::Error("ps3vt: radius 0 means 1/sqrt(tau_A), which needs tau_A > 0");
      radius_ = 1.0 / std::sqrt(tau_a_);
    }
  }

  void fit(glimpse::BatchProblem& problem, std::uint64_t seed) override {
    const glimpse::ProblemShape shape = problem.shape();
    d_ = shape.d;
    k_ = shape.K;
    weights_.setZero(d_, k_);
    x_.setZero(d_);
    h_.setZero(k_);
    const auto labelled = problem.labelled();
    const auto labels = problem.labels();
    const auto n = static_cast<std::int64_t>(labelled.size());
    if (tau_i_ > 0.0) {
      graph_ = problem.shared<glimpse::algorithms::KnnGraph>(
          "knn " + std::to_string(neighbours_) + " bandwidth " + std::to_string(static_cast<int>(bandwidth_)) +
              " weights " + std::to_string(static_cast<int>(edge_weights_)),
          [&] {
            glimpse::algorithms::PointMatrix points(shape.n, shape.d);
            Eigen::VectorXd row(shape.d);
            for (std::int64_t i = 0; i < shape.n; ++i) {
              problem.point(i).to_dense(row);
              points.row(i) = row.transpose();
            }
            return std::make_shared<glimpse::algorithms::KnnGraph>(
                glimpse::algorithms::build_knn_graph(points, neighbours_, bandwidth_, edge_weights_));
          });
    }
    const auto rank = std::min<std::int64_t>(k_, d_);
    theta_ = static_cast<std::int32_t>(std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::floor(theta_fraction_ * static_cast<double>(rank))), 1, rank));
    const std::int64_t iterations = iterations_ > 0 ? iterations_ : passes_ * n;
    const std::int64_t report_every = std::max<std::int64_t>(1, iterations / objective_points_);
    glimpse::algorithms::TailThreshold svt;
    Eigen::MatrixXd gradient(d_, k_);
    glimpse::Rng rng(seed);
    order_.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = static_cast<std::size_t>(i);
    for (std::int64_t t = 1; t <= iterations; ++t) {
      const double step = schedule_ == Schedule::constant ? 1.0 / mu_ : mu_ / static_cast<double>(t + n);
      gradient.setZero();
      if (mode_ == Mode::gd) {
        for (std::int64_t i = 0; i < n; ++i) add_hinge_subgradient(problem.point(labelled[i]), labels[i], gradient);
        gradient /= static_cast<double>(n);
      } else {
        const auto i = next_point(t, n, rng);
        add_hinge_subgradient(problem.point(labelled[i]), labels[i], gradient);
      }
      gradient += 2.0 * tau_a_ * weights_;
      if (graph_) gradient.noalias() += 2.0 * tau_i_ * graph_->laplacian_product * weights_;
      weights_ -= step * gradient;
      if (tau_s_ > 0.0) svt.apply(weights_, theta_, tau_s_ * step, thresholded_);
      // After the thresholding svt.values() already holds W's singular values (in any order once leading ones shrink).
      const double norm = norm_ == Norm::frobenius
                              ? weights_.norm()
                              : largest(tau_s_ > 0.0 ? svt.values() : svt.singular_values(weights_));
      if (norm > radius_) weights_ /= norm / radius_;
      if (t % report_every == 0 || t == iterations) {
        if (!problem.iteration_done(t, objective(problem, svt))) return;
      }
    }
  }

  void evaluate(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    x.to_dense(x_);
    h_.noalias() = weights_.transpose() * x_;
    for (std::int32_t c = 0; c < k_; ++c) pred.scores[static_cast<std::size_t>(c)] = h_[c];
    pred.predicted = glimpse::argmax(pred.scores);
    pred.proposed = pred.predicted;
  }

 private:
  // Iteration t's labelled point: uniform with replacement, or the next of this pass's permutation.
  std::size_t next_point(std::int64_t t, std::int64_t n, glimpse::Rng& rng) {
    if (sampling_ == Sampling::uniform) return static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(n)));
    const auto position = static_cast<std::size_t>((t - 1) % n);
    if (position == 0)
      for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
    return order_[position];
  }

  // The runner-up of x's scores and the margin h_y - h_runner-up, with h = W^T x (x loaded into x_).
  std::pair<std::int32_t, double> margin(std::int32_t y) const {
    std::int32_t runner_up = -1;
    for (std::int32_t c = 0; c < k_; ++c)
      if (c != y && (runner_up < 0 || h_[c] > h_[runner_up])) runner_up = c;
    return {runner_up, h_[y] - h_[runner_up]};
  }

  void add_hinge_subgradient(const glimpse::Instance& x, std::int32_t y, Eigen::MatrixXd& gradient) {
    x.to_dense(x_);
    h_.noalias() = weights_.transpose() * x_;
    const auto [runner_up, m] = margin(y);
    if (m >= 1.0) return;
    gradient.col(y) -= x_;
    gradient.col(runner_up) += x_;
  }

  static double largest(const Eigen::VectorXd& values) { return values.size() > 0 ? values.maxCoeff() : 0.0; }

  // J(W) over the labelled points of this fit.
  double objective(glimpse::BatchProblem& problem, glimpse::algorithms::TailThreshold& svt) {
    const auto labelled = problem.labelled();
    const auto labels = problem.labels();
    double hinge = 0.0;
    for (std::size_t i = 0; i < labelled.size(); ++i) {
      problem.point(labelled[i]).to_dense(x_);
      h_.noalias() = weights_.transpose() * x_;
      hinge += std::max(0.0, 1.0 - margin(labels[i]).second);
    }
    double value = hinge / static_cast<double>(labelled.size()) + tau_a_ * weights_.squaredNorm();
    if (graph_) value += tau_i_ * (weights_.transpose() * graph_->laplacian_product * weights_).trace();
    if (tau_s_ > 0.0) {
      const Eigen::VectorXd& values = svt.singular_values(weights_);
      for (Eigen::Index j = theta_; j < values.size(); ++j) value += tau_s_ * values[j];
    }
    return value;
  }

  enum class Variant { ps3vt, linear_mc, lrc_mc, ss_mc };  // the choices' order, as below
  enum class Mode { sgd, gd };
  enum class Schedule { constant, decaying };
  enum class Sampling { uniform, epochs };
  enum class Norm { frobenius, spectral };
  Variant variant_ = Variant::ps3vt;
  double tau_a_ = 1e-8, tau_i_ = 1e-8, tau_s_ = 1e-4, mu_ = 100, theta_fraction_ = 0.7, radius_ = 1.0;
  std::int64_t iterations_ = 0, passes_ = 20;
  Mode mode_ = Mode::sgd;
  Schedule schedule_ = Schedule::constant;
  Sampling sampling_ = Sampling::uniform;
  glimpse::algorithms::Thresholded thresholded_ = glimpse::algorithms::Thresholded::tail;  // choices' order
  std::vector<std::size_t> order_;
  Norm norm_ = Norm::frobenius;
  std::int32_t neighbours_ = 10;
  glimpse::algorithms::Bandwidth bandwidth_ = glimpse::algorithms::Bandwidth::mean_pairwise;  // choices' order
  glimpse::algorithms::EdgeWeights edge_weights_ = glimpse::algorithms::EdgeWeights::single;  // choices' order
  std::int64_t objective_points_ = 100;
  std::int32_t d_ = 0, k_ = 0, theta_ = 1;
  Eigen::MatrixXd weights_;
  Eigen::VectorXd x_, h_;
  std::shared_ptr<const glimpse::algorithms::KnnGraph> graph_;
};

}  // namespace

GLIMPSE_PLUGIN(Ps3vt)
