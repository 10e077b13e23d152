// The operator norm of the class-normalised confusion matrix (COPA paper) as final scalars only, online and,
// when the protocol has a test part, at the last test evaluation: the column for summary tables. The
// confusion metric gives the same values with curves, balanced errors and the matrices.
#include <glimpse/algorithms/confusion_matrix.hpp>
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class OperatorNorm final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "operator_norm",
            .kind = glimpse::PluginKind::metric,
            .summary = "final operator norm of the class-normalised confusion matrix (online, and test if any)",
            .reference = "Ralaivola, Confusion-Based Online Learning and a Passive-Aggressive Scheme, NIPS 2012",
            .params = {glimpse::algorithms::scored_label_param(&OperatorNorm::of_)},
            .better = glimpse::Better::lower};
  }

  void reset(const glimpse::ProblemShape& shape, std::int64_t) override {
    online_.reset(shape.K);
    test_.reset(shape.K);
    tested_ = false;
  }
  void observe(const glimpse::RoundRecord& r) override {
    online_.add(r.truth->label, glimpse::algorithms::scored_label(r, of_));
  }
  void observe_test(std::int32_t label, const glimpse::Prediction& pred) override { test_.add(label, pred.predicted); }
  void test_done(std::int64_t) override {
    test_norm_ = test_.operator_norm();
    test_.clear();
    tested_ = true;
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", online_.operator_norm()});
    if (tested_) out.scalars.push_back({"test", test_norm_});
  }

 private:
  glimpse::algorithms::ScoredLabel of_ = glimpse::algorithms::ScoredLabel::proposed;
  glimpse::algorithms::ConfusionCounts online_, test_;
  double test_norm_ = 0.0;
  bool tested_ = false;
};

}  // namespace

GLIMPSE_PLUGIN(OperatorNorm)
