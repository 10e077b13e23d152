// Gappletron, bandit feedback graph (van der Hoeven, Fusco, Cesa-Bianchi, NeurIPS 2021), reconstructed (hinge,
// smooth hinge or logistic loss): Gaptron's round (glimpse::algorithms::SurrogateGapLearner) with the
// adaptive OGD step of the experiments that follow the paper, eta_t = B / sqrt(2 (1e-8 + sum_s ||G_s||_F^2)) over
// the importance-weighted gradients so far, no projection.
#include <cmath>
#include <glimpse/algorithms/surrogate_gap.hpp>
#include <glimpse/glimpse.hpp>

namespace {

struct AdaptiveStep {
  double squared_sum = 0;
  void reset() { squared_sum = 0; }
  double operator()(double diameter, double squared_norm) {
    squared_sum += squared_norm;
    return diameter / std::sqrt(2 * (1e-8 + squared_sum));
  }
};

template <class T>
class Gappletron final : public glimpse::algorithms::SurrogateGapLearner<T, AdaptiveStep> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "gappletron",
            .kind = glimpse::PluginKind::learner,
            .summary = "Gappletron (reconstructed): gap-mixed proposals, adaptive importance-weighted OGD",
            .reference = "van der Hoeven, Fusco, Cesa-Bianchi, NeurIPS 2021; reconstructed (README.md here)",
            .params = {glimpse::ParamSpec::real("gamma", "0.05", "uniform exploration mixed in (gamma)")
                           .above(0)
                           .at_most(1)
                           .into(&Gappletron::gamma_),
                       glimpse::ParamSpec::real("B", "10", "diameter B in eta_t = B / sqrt(2 sum ||G||^2)")
                           .above(0)
                           .into(&Gappletron::step_scale_),
                       glimpse::algorithms::surrogate_loss_param(&Gappletron::loss_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Gappletron)
