// Makes a stream imbalanced: keeps a fraction f_k of each class k's rows, drawn per seed (stratified, so a
// run's subsample does not depend on the other classes). Profiles, with ratio r >= 1 between the most and
// the least kept class:
//   geometric: f_k = r^(-k/(K-1)) in class order (class 1 keeps all, class K keeps 1/r);
//   one_rare:  class `rare_class` keeps 1/r, the others all.
// At least one row of every class is kept.
#include <cmath>
#include <glimpse/glimpse.hpp>
#include <glimpse/split.hpp>

namespace {

class Imbalance final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "imbalance",
            .kind = glimpse::PluginKind::transform,
            .summary = "subsamples classes per seed to a geometric or one-rare-class profile with a given ratio",
            .reference = "COPA paper's imbalanced setting",
            .params = {glimpse::ParamSpec::choice("profile", "geometric", {"geometric", "one_rare"},
                                                  "geometric: class k keeps ratio^(-(k-1)/(K-1)) of its rows; "
                                                  "one_rare: rare_class keeps 1/ratio, the others all")
                           .into(&Imbalance::profile_),
                       glimpse::ParamSpec::real("ratio", "10", "kept share of the fullest class over the rarest")
                           .at_least(1)
                           .into(&Imbalance::ratio_),
                       glimpse::ParamSpec::integer("rare_class", "K", "the rare class of one_rare, 1..K")
                           .at_least(1)
                           .into(&Imbalance::rare_)}};
  }
  bool per_seed() const override { return true; }

  void apply(glimpse::Dataset& data, const glimpse::SeedContext& seed) const override {
    const std::int32_t k = data.num_classes();
    const auto order = seed.order_of(data);
    if (rare_ > k) throw glimpse::Error("rare_class " + std::to_string(rare_) + " outside 1..K = " + std::to_string(k));
    std::vector<double> fractions(static_cast<std::size_t>(k), 1.0);
    for (std::int32_t c = 0; c < k; ++c) {
      if (profile_ == "geometric")
        fractions[static_cast<std::size_t>(c)] = k > 1 ? std::pow(ratio_, -static_cast<double>(c) / (k - 1)) : 1.0;
      else if (c + 1 == rare_)
        fractions[static_cast<std::size_t>(c)] = 1.0 / ratio_;
    }
    auto kept_flags = glimpse::stratified_choice(data.labels(), fractions, seed.key);
    // Never drop a class entirely: keep its first row in the stream order if the fraction rounded to zero.
    std::vector<bool> present(static_cast<std::size_t>(k), false);
    for (std::int64_t i = 0; i < data.size(); ++i)
      if (kept_flags[static_cast<std::size_t>(i)]) present[static_cast<std::size_t>(data.label(i))] = true;
    for (const std::int64_t i : order) {
      const auto c = static_cast<std::size_t>(data.label(i));
      if (!present[c]) kept_flags[static_cast<std::size_t>(i)] = present[c] = true;
    }
    std::vector<std::int64_t> kept;
    for (std::int64_t i = 0; i < data.size(); ++i)
      if (kept_flags[static_cast<std::size_t>(i)]) kept.push_back(i);
    data = data.subset(kept);
  }

 private:
  std::string profile_;
  double ratio_ = 10;
  std::int64_t rare_ = 1;
};

}  // namespace

GLIMPSE_PLUGIN(Imbalance)
