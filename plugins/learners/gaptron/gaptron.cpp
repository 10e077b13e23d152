// Gaptron, bandit setting (van der Hoeven, NeurIPS 2020), reconstructed (hinge, smooth hinge or logistic loss):
// gap-mixed proposals with gamma of uniform exploration and an importance-weighted OGD step of constant size eta
// on right proposals. The round is glimpse::algorithms::SurrogateGapLearner; what is reconstructed is said there.
#include <glimpse/algorithms/surrogate_gap.hpp>
#include <glimpse/glimpse.hpp>

namespace {

struct ConstantStep {
  void reset() {}
  double operator()(double eta, double) const { return eta; }
};

template <class T>
class Gaptron final : public glimpse::algorithms::SurrogateGapLearner<T, ConstantStep> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "gaptron",
            .kind = glimpse::PluginKind::learner,
            .summary = "Gaptron (reconstructed): gap-mixed proposals, importance-weighted OGD",
            .reference = "van der Hoeven, NeurIPS 2020; gap map and constants reconstructed (README.md here)",
            .params = {glimpse::ParamSpec::real("gamma", "0.05", "uniform exploration mixed in (gamma)")
                           .above(0)
                           .at_most(1)
                           .into(&Gaptron::gamma_),
                       glimpse::ParamSpec::real("eta", "1", "OGD step size (eta)").above(0).into(&Gaptron::step_scale_),
                       glimpse::algorithms::surrogate_loss_param(&Gaptron::loss_),
                       glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::correctness}};
  }
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Gaptron)
