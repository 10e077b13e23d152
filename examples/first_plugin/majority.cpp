// The smallest useful learner: predicts the label it has been told most often so far (lowest on ties).
// A baseline any learner must beat; the template for writing your own (docs/writing-a-plugin.md).
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <vector>

namespace {

class Majority final : public glimpse::Learner {
 public:
  // What `glimpse describe majority` prints and what protocols are validated against.
  static glimpse::PluginSpec spec() {
    return {.name = "majority",
            .kind = glimpse::PluginKind::learner,
            .summary = "predicts the most frequent label seen so far",
            // Each parameter is declared once and bound to the field that holds it: glimpse stores the validated,
            // typed value there when it creates the learner.
            .params = {glimpse::ParamSpec::real("prior", "0", "pseudo-count given to every class at the start")
                           .at_least(0)
                           .into(&Majority::prior_)},
            .accepts = {glimpse::FeedbackKind::label}};
  }

  // Size buffers here: predict and learn must not allocate.
  void reset(const glimpse::ProblemShape& shape, std::uint64_t /*seed*/) override {
    counts_.assign(static_cast<std::size_t>(shape.K), prior_);
  }

  void predict(const glimpse::Instance&, glimpse::Prediction& pred) override {
    std::copy(counts_.begin(), counts_.end(), pred.scores.begin());
    pred.predicted = pred.proposed = glimpse::argmax(counts_);
  }

  void learn(const glimpse::Instance&, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    if (const std::int32_t y = glimpse::full_label(feedback); y >= 0) counts_[static_cast<std::size_t>(y)] += 1;
  }

 private:
  double prior_ = 0;
  std::vector<double> counts_;
};

}  // namespace

GLIMPSE_PLUGIN(Majority)
