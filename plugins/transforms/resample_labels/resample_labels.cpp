// Draws every label afresh from the generator's p(y|x), once per seed: repeated trials of a synthetic stream
// then differ in their labels (and so in their noise) while the instances stay the same, the paper's
// "20 trials" of the selective-sampling experiments (section 7). Only synthetic sources know p(y|x).
#include <glimpse/glimpse.hpp>

namespace {

class ResampleLabels final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "resample_labels",
            .kind = glimpse::PluginKind::transform,
            .summary = "y_t ~ p(y|x_t) drawn afresh per seed (synthetic streams only: glm_mixture, gaussians)",
            .reference = "selective-sampling paper (CS-Selectron) section 7: 20 trials per setting",
            .params = {}};
  }
  explicit ResampleLabels(const glimpse::ParamValues&) {}
  bool per_seed() const override { return true; }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext& seed) const override {
    const auto k = static_cast<std::size_t>(data.num_classes());
    const auto labels = data.mutable_labels();
    if (data.class_probabilities.size() != labels.size() * k)
      throw glimpse::Error(
          "resample_labels: the dataset carries no p(y|x); only synthetic sources (glm_mixture, gaussians) do");
    glimpse::Rng rng(seed.key);
    const std::span<const double> p(data.class_probabilities);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = rng.sample(p.subspan(i * k, k));
  }
};

}  // namespace

GLIMPSE_PLUGIN(ResampleLabels)
