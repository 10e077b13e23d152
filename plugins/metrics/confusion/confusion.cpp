// Confusion-matrix measures (COPA paper): the online (prequential) class-normalised confusion matrix and,
// when the protocol has a test part, the test-set one at every evaluation; for each, the operator norm of
// the off-diagonal part (the metric's main value), the balanced error, and the matrix itself (its diagonal is
// the per-class recall) in the run's /matrices group. Against the true labels (what the study measures), or
// against the labels the oracle gave (`against feedback`: all a learner's user could see, so a grid point may be
// chosen on it without peeking at the truth under label noise).
#include <glimpse/algorithms/confusion_matrix.hpp>
#include <glimpse/algorithms/label_choice.hpp>
#include <glimpse/algorithms/sampled_curve.hpp>
#include <glimpse/glimpse.hpp>
#include <limits>

namespace {

class Confusion final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "confusion",
            .kind = glimpse::PluginKind::metric,
            .summary =
                "operator norm of the class-normalised confusion matrix (online and test), balanced error, "
                "and the matrices",
            .reference = "Ralaivola, Confusion-Based Online Learning and a Passive-Aggressive Scheme, NIPS 2012",
            .params = {glimpse::algorithms::scored_label_param(&Confusion::of_),
                       glimpse::ParamSpec::integer("record_every", "0",
                                                   "rounds between online curve points (0: final values only)")
                           .at_least(0)
                           .into(&Confusion::record_every_),
                       glimpse::ParamSpec::choice("against", "truth", {"truth", "feedback"},
                                                  "online: score against the true label, or against the label the "
                                                  "oracle gave (rounds without a label are left out)")
                           .into(&Confusion::against_)},
            .better = glimpse::Better::lower};
  }
  void configure() {
    online_norm_ = glimpse::algorithms::SampledCurve("", record_every_, record_every_);
    online_balanced_ = glimpse::algorithms::SampledCurve("balanced_error", record_every_, record_every_);
  }

  void reset(const glimpse::ProblemShape& shape, std::int64_t total_rounds) override {
    online_.reset(shape.K);
    test_.reset(shape.K);
    online_norm_.reset(total_rounds);
    online_balanced_.reset(total_rounds);
    test_norm_ = {"test", {}, {}};
    test_balanced_ = {"test_balanced_error", {}, {}};
    for (auto* c : {&test_norm_, &test_balanced_}) c->rounds.reserve(64), c->values.reserve(64);
    last_test_rates_.assign(static_cast<std::size_t>(shape.K) * static_cast<std::size_t>(shape.K), 0.0);
  }
  void observe(const glimpse::RoundRecord& r) override {
    std::int32_t reference = r.truth->label;
    if (against_ == Against::feedback) {
      if (const auto* given = std::get_if<glimpse::LabelFeedback>(r.feedback)) {
        reference = given->label;
      } else if (const auto* noisy = std::get_if<glimpse::NoisyLabelFeedback>(r.feedback)) {
        reference = noisy->label;
      } else {
        reference = -1;
      }
    }
    if (reference >= 0) online_.add(reference, glimpse::algorithms::scored_label(r, of_));
    if (online_norm_.due(r.round)) {
      online_norm_.record(r.round, online_.operator_norm());
      online_balanced_.record(r.round, online_.balanced_error());
    }
    rounds_ = r.round;
  }
  void observe_test(std::int32_t label, const glimpse::Prediction& pred) override { test_.add(label, pred.predicted); }
  void test_done(std::int64_t round) override {
    test_norm_.rounds.push_back(round);
    test_norm_.values.push_back(test_.operator_norm());
    test_balanced_.rounds.push_back(round);
    test_balanced_.values.push_back(test_.balanced_error());
    test_.rates(last_test_rates_);
    test_.clear();
  }

  void report(glimpse::MetricResults& out) const override {
    const double norm = online_.operator_norm(), balanced = online_.balanced_error();
    out.scalars.push_back({"", norm});
    out.scalars.push_back({"balanced_error", balanced});
    online_norm_.report(out, rounds_, norm);
    online_balanced_.report(out, rounds_, balanced);
    const auto k = online_.num_classes();
    glimpse::MetricResults::Matrix matrix{"", k, k, {}};
    online_.rates(matrix.values);
    out.matrices.push_back(std::move(matrix));
    if (test_norm_.rounds.empty()) return;  // the protocol has no test part
    out.scalars.push_back({"test", test_norm_.values.back()});
    out.scalars.push_back({"test_balanced_error", test_balanced_.values.back()});
    out.curves.push_back(test_norm_);
    out.curves.push_back(test_balanced_);
    out.matrices.push_back({"test", k, k, last_test_rates_});
  }

 private:
  glimpse::algorithms::ScoredLabel of_ = glimpse::algorithms::ScoredLabel::proposed;
  enum class Against { truth, feedback };  // the choices' order
  Against against_ = Against::truth;
  std::int64_t record_every_ = 0;
  std::int64_t rounds_ = 0;
  glimpse::algorithms::ConfusionCounts online_, test_;
  glimpse::algorithms::SampledCurve online_norm_{"", 0, 0}, online_balanced_{"balanced_error", 0, 0};
  glimpse::MetricResults::Curve test_norm_, test_balanced_;  // one point per test evaluation
  std::vector<double> last_test_rates_;
};

}  // namespace

GLIMPSE_PLUGIN(Confusion)
