// A one-feature stream built to show the selective-sampling paper's safety switch (section 4.3) at work: an
// isolated cluster, x uniform on [-3, -2], always of class 0; and a ramp, x uniform on [1, 3], where classes 1
// and 2 meet: P(y = 2 | x) = 1 / (1 + exp(-slope (x - 2))). With the `bias` transform a linear logistic model
// fits both parts. An uncertainty-driven rule keeps asking on the ramp and soon stops asking on the cluster; a
// drift that relabels the cluster (label_drift a = 0, b = 3 with num_classes 4: a class that appears later)
// then goes unseen by the active model, while a random subsample still sees it. p(y|x) is emitted for the regret.
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

class ClusterAndRamp final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "cluster_and_ramp",
            .kind = glimpse::PluginKind::data_source,
            .summary =
                "1-D: a cluster of class 0 on [-3, -2] and a logistic ramp between classes 1 and 2 on [1, 3]; "
                "emits p(y|x)",
            .reference = "selective-sampling paper (Agarwal, ICML 2013) section 4.3: a setting for the safety switch",
            .params = {glimpse::ParamSpec::integer("n", "10000", "rows").at_least(1).into(&ClusterAndRamp::n_),
                       glimpse::ParamSpec::real("cluster_mass", "0.3", "probability that a row is in the cluster")
                           .at_least(0)
                           .at_most(1)
                           .into(&ClusterAndRamp::cluster_mass_),
                       glimpse::ParamSpec::real("slope", "4", "steepness of the ramp's P(y = 2 | x)")
                           .at_least(0)
                           .into(&ClusterAndRamp::slope_),
                       glimpse::ParamSpec::integer("num_classes", "3",
                                                   "K: 3, or more to leave classes for a later drift to bring in")
                           .at_least(3)
                           .into(&ClusterAndRamp::k_),
                       glimpse::ParamSpec::integer("seed", "0", "generator seed (the data, not the run order)")
                           .at_least(0)
                           .into(&ClusterAndRamp::seed_),
                       glimpse::ParamSpec::choice("per_trial", "rows", {"none", "rows"},
                                                  "none: one dataset from seed, shared by every run; rows: each of the "
                                                  "protocol's seeds draws its own rows")
                           .into(&ClusterAndRamp::per_trial_)}};
  }

  glimpse::Dataset load() override { return draw(glimpse::derive_key(glimpse::hash_name("cluster_and_ramp"), seed_)); }
  bool per_seed() const override { return per_trial_ == PerTrial::rows; }
  glimpse::Dataset load_for_seed(const glimpse::SeedContext& trial) const override { return draw(trial.key); }

 private:
  glimpse::Dataset draw(std::uint64_t key) const {
    glimpse::Rng rng(key);
    std::vector<glimpse::Feature> values(static_cast<std::size_t>(n_));
    std::vector<std::int32_t> labels(static_cast<std::size_t>(n_));
    std::vector<double> probabilities(static_cast<std::size_t>(n_ * k_), 0.0);
    for (std::int64_t i = 0; i < n_; ++i) {
      double* p = probabilities.data() + i * k_;
      if (rng.uniform() < cluster_mass_) {
        values[i] = static_cast<glimpse::Feature>(-3.0 + rng.uniform());
        p[0] = 1.0;
      } else {
        values[i] = static_cast<glimpse::Feature>(1.0 + 2.0 * rng.uniform());
        p[2] = 1.0 / (1.0 + std::exp(-slope_ * (static_cast<double>(values[i]) - 2.0)));
        p[1] = 1.0 - p[2];
      }
      labels[i] = rng.sample({p, static_cast<std::size_t>(k_)});
    }
    auto data = glimpse::Dataset::dense(n_, 1, std::move(values), std::move(labels), k_);
    data.class_probabilities = std::move(probabilities);
    return data;
  }

  enum class PerTrial { none, rows };  // the choices' order
  std::int64_t n_ = 10000;
  double cluster_mass_ = 0.3, slope_ = 4;
  std::int32_t k_ = 3;
  std::uint64_t seed_ = 0;
  PerTrial per_trial_ = PerTrial::rows;
};

}  // namespace

GLIMPSE_PLUGIN(ClusterAndRamp)
