// Keeps one part of a stratified random split drawn per seed: train or test (test_fraction of each class),
// and within train the labelled or unlabelled rows (labelled_fraction of each class) — the splits of the
// PS3VT paper (70/30, then 30% of the training part labelled). Put transforms that fit statistics
// (standardize, minmax_scale) after it, so they are fitted on the part kept.
#include <glimpse/glimpse.hpp>
#include <glimpse/split.hpp>

namespace {

class Split final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "split",
            .kind = glimpse::PluginKind::transform,
            .summary = "keeps one part of a stratified split drawn per seed: train, test, labelled or unlabelled",
            .reference = "PS3VT paper (Li et al. 2019) section 6",
            .params = {glimpse::ParamSpec::choice("keep", "train", {"train", "test", "labelled", "unlabelled"},
                                                  "the part to keep (labelled and unlabelled are parts of train)")
                           .into(&Split::keep_),
                       glimpse::ParamSpec::real("test_fraction", "0.3", "share of each class in the test part")
                           .at_least(0)
                           .below(1)
                           .into(&Split::test_),
                       glimpse::ParamSpec::real("labelled_fraction", "0.3",
                                                "share of each class of the training part that is labelled")
                           .above(0)
                           .at_most(1)
                           .into(&Split::labelled_)}};
  }
  bool per_seed() const override { return true; }

  void apply(glimpse::Dataset& data, const glimpse::SeedContext& seed) const override {
    const auto test =
        glimpse::stratified_choice(data.labels(), data.num_classes(), test_, glimpse::derive_key(seed.key, 1));
    std::vector<std::int64_t> train_rows, test_rows;
    for (std::int64_t i = 0; i < data.size(); ++i)
      (test[static_cast<std::size_t>(i)] ? test_rows : train_rows).push_back(i);
    std::vector<std::int64_t> kept;
    if (keep_ == "test") {
      kept = test_rows;
    } else if (keep_ == "train") {
      kept = train_rows;
    } else {
      std::vector<std::int32_t> train_labels;
      for (auto i : train_rows) train_labels.push_back(data.label(i));
      const auto labelled =
          glimpse::stratified_choice(train_labels, data.num_classes(), labelled_, glimpse::derive_key(seed.key, 2));
      for (std::size_t j = 0; j < train_rows.size(); ++j)
        if (labelled[j] == (keep_ == "labelled")) kept.push_back(train_rows[j]);
    }
    if (kept.empty()) throw glimpse::Error("split: the '" + keep_ + "' part is empty");
    data = data.subset(kept);
  }

 private:
  std::string keep_;
  double test_ = 0.3, labelled_ = 0.3;
};

}  // namespace

GLIMPSE_PLUGIN(Split)
