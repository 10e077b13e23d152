// Adds N(0, sigma^2) to every feature of every row, drawn afresh for each seed (trial): the CSPA paper's
// noise-robustness experiment (section 5.1). Put it after scaling and before l2_normalize.
#include <glimpse/glimpse.hpp>

namespace {

class GaussianNoise final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "gaussian_noise",
            .kind = glimpse::PluginKind::transform,
            .summary = "x_j <- x_j + N(0, sigma^2) for every feature, drawn per seed",
            .reference = "CSPA paper (Kaneko et al. 2019) section 5.1",
            .params = {glimpse::ParamSpec::real("sigma", "0.1", "standard deviation of the added noise")
                           .at_least(0)
                           .into(&GaussianNoise::sigma_)}};
  }
  bool per_seed() const override { return true; }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext& seed) const override {
    if (!data.is_dense()) throw glimpse::Error("gaussian_noise: needs dense data (noise makes every feature non-zero)");
    glimpse::Rng rng(seed.key);
    for (auto& v : data.mutable_values()) v = static_cast<glimpse::Feature>(v + sigma_ * rng.normal());
  }

 private:
  double sigma_ = 0.1;
};

}  // namespace

GLIMPSE_PLUGIN(GaussianNoise)
