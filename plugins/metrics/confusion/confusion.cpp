// Confusion-matrix measures (COPA paper): the online (prequential) class-normalised confusion matrix and,
// when the protocol has a test part, the test-set one at every evaluation; for each, the operator norm of
// the off-diagonal part (the metric's main value), the balanced error, and the matrix itself (its diagonal is
// the per-class recall) in the run's /matrices group.
#include <glimpse/algorithms/confusion_matrix.hpp>
#include <glimpse/algorithms/label_choice.hpp>
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
            .params = {glimpse::algorithms::scored_label_param(),
                       glimpse::ParamSpec::integer("record_every", "0",
                                                   "rounds between online curve points (0: final values only)")
                           .at_least(0)}};
  }
  explicit Confusion(const glimpse::ParamValues& params)
      : proposed_(params.text("of") == "proposed"), every_(params.integer("record_every")) {}

  void reset(const glimpse::ProblemShape& shape, std::int64_t total_rounds) override {
    online_.reset(shape.K);
    test_.reset(shape.K);
    online_norm_ = {"", {}, {}};
    online_balanced_ = {"balanced_error", {}, {}};
    test_norm_ = {"test", {}, {}};
    test_balanced_ = {"test_balanced_error", {}, {}};
    const auto points = static_cast<std::size_t>(every_ > 0 ? total_rounds / every_ + 2 : 2);
    for (auto* c : {&online_norm_, &online_balanced_}) c->rounds.reserve(points), c->values.reserve(points);
    for (auto* c : {&test_norm_, &test_balanced_}) c->rounds.reserve(64), c->values.reserve(64);
    last_test_rates_.assign(static_cast<std::size_t>(shape.K) * static_cast<std::size_t>(shape.K), 0.0);
    tested_ = false;
  }
  void observe(const glimpse::RoundRecord& r) override {
    online_.add(r.truth->label, proposed_ ? r.prediction->proposed : r.prediction->predicted);
    if (every_ > 0 && r.round % every_ == 0) {
      push(online_norm_, r.round, online_.operator_norm());
      push(online_balanced_, r.round, online_.balanced_error());
    }
    rounds_ = r.round;
  }
  void observe_test(std::int32_t label, const glimpse::Prediction& pred) override { test_.add(label, pred.predicted); }
  void test_done(std::int64_t round) override {
    push(test_norm_, round, test_.operator_norm());
    push(test_balanced_, round, test_.balanced_error());
    test_.rates(last_test_rates_);
    test_.clear();
    tested_ = true;
  }

  void report(glimpse::MetricResults& out) const override {
    auto online = online_;  // operator_norm() uses scratch space; report() is const
    const double norm = online.operator_norm();
    out.scalars.push_back({"", norm});
    out.scalars.push_back({"balanced_error", online.balanced_error()});
    if (every_ > 0) {
      auto norm_curve = online_norm_, balanced_curve = online_balanced_;
      if (norm_curve.rounds.empty() || norm_curve.rounds.back() != rounds_) {
        push(norm_curve, rounds_, norm);
        push(balanced_curve, rounds_, online.balanced_error());
      }
      out.curves.push_back(std::move(norm_curve));
      out.curves.push_back(std::move(balanced_curve));
    }
    const auto k = online.num_classes();
    glimpse::MetricResults::Matrix matrix{"", k, k, {}};
    online.rates(matrix.values);
    out.matrices.push_back(std::move(matrix));
    if (!tested_) return;
    out.scalars.push_back({"test", test_norm_.values.back()});
    out.scalars.push_back({"test_balanced_error", test_balanced_.values.back()});
    out.curves.push_back(test_norm_);
    out.curves.push_back(test_balanced_);
    out.matrices.push_back({"test", k, k, last_test_rates_});
  }

 private:
  static void push(glimpse::MetricResults::Curve& curve, std::int64_t round, double value) {
    curve.rounds.push_back(round);
    curve.values.push_back(value);
  }
  bool proposed_;
  std::int64_t every_;
  std::int64_t rounds_ = 0;
  glimpse::algorithms::ConfusionCounts online_, test_;
  glimpse::MetricResults::Curve online_norm_, online_balanced_, test_norm_, test_balanced_;
  std::vector<double> last_test_rates_;
  bool tested_ = false;
};

}  // namespace

GLIMPSE_PLUGIN(Confusion)
