// An abrupt concept drift: from round `at` * n of each trial's stream on, classes a and b trade places (the
// labels, and their columns of p(y|x) when the source emits it, so the regret is measured against the new
// concept). A learner that stopped asking for labels where it is confident does not see the change: an
// adversarial stream for the selective-sampling paper's safety switch (section 4.3). The rows are chosen by
// their place in the first pass; on later passes the same rows stay swapped.
#include <glimpse/glimpse.hpp>

namespace {

class LabelDrift final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "label_drift",
        .kind = glimpse::PluginKind::transform,
        .summary =
            "from round at*n of the stream on, classes a and b swap (labels and p(y|x)): an abrupt concept drift",
        .reference = "selective-sampling paper (Agarwal, ICML 2013) section 4.3: a stream the model does not fit",
        .params = {
            glimpse::ParamSpec::real("at", "0.5", "where the drift happens, as a fraction of the stream's rounds")
                .at_least(0)
                .at_most(1)
                .into(&LabelDrift::at_),
            glimpse::ParamSpec::integer("a", "0", "one class of the swapped pair (0-based)")
                .at_least(0)
                .into(&LabelDrift::a_),
            glimpse::ParamSpec::integer("b", "1", "the other class of the pair").at_least(0).into(&LabelDrift::b_)}};
  }

  bool per_seed() const override { return true; }  // the drifted rows follow each trial's stream order

  void apply(glimpse::Dataset& data, const glimpse::SeedContext& seed) const override {
    const std::int32_t k = data.num_classes();
    if (a_ >= k || b_ >= k || a_ == b_)
      throw glimpse::Error("label_drift: a and b must be two different classes below K = " + std::to_string(k) +
                           ", got a = " + std::to_string(a_) + ", b = " + std::to_string(b_));
    const auto order = seed.order_of(data);
    const auto labels = data.mutable_labels();
    const bool has_probabilities = !data.class_probabilities.empty();
    const auto first = static_cast<std::size_t>(at_ * static_cast<double>(order.size()));
    for (const std::int64_t row : order.subspan(first)) {
      auto& y = labels[static_cast<std::size_t>(row)];
      y = y == a_ ? b_ : y == b_ ? a_ : y;
      if (!has_probabilities) continue;
      double* p = data.class_probabilities.data() + static_cast<std::size_t>(row) * static_cast<std::size_t>(k);
      std::swap(p[a_], p[b_]);
    }
  }

 private:
  double at_ = 0.5;
  std::int32_t a_ = 0, b_ = 1;
};

}  // namespace

GLIMPSE_PLUGIN(LabelDrift)
