// Error rate on held-out rows: a batch protocol's test part (the PS3VT paper's "test error"), or an online
// protocol's dataset "test" part. The final value, and a curve over the evaluations (rounds, or fit iterations).
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

class TestError final : public glimpse::Metric {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "test_error",
            .kind = glimpse::PluginKind::metric,
            .summary =
                "share of held-out rows whose predicted label is wrong, at the last evaluation (NAME) and "
                "at every evaluation (curve NAME)",
            .better = glimpse::Better::lower};
  }
  explicit TestError(const glimpse::ParamValues&) {}
  void reset(const glimpse::ProblemShape&, std::int64_t) override {
    mistakes_ = seen_ = 0;
    curve_ = {"", {}, {}};
  }
  void observe(const glimpse::RoundRecord&) override {}
  void observe_test(std::int32_t label, const glimpse::Prediction& pred) override {
    mistakes_ += pred.predicted != label;
    ++seen_;
  }
  void test_done(std::int64_t round) override {
    curve_.rounds.push_back(round);
    curve_.values.push_back(seen_ > 0 ? static_cast<double>(mistakes_) / static_cast<double>(seen_) : NAN);
    mistakes_ = seen_ = 0;
  }
  void report(glimpse::MetricResults& out) const override {
    out.scalars.push_back({"", curve_.values.empty() ? NAN : curve_.values.back()});
    out.curves.push_back(curve_);
  }

 private:
  std::int64_t mistakes_ = 0, seen_ = 0;
  glimpse::MetricResults::Curve curve_;
};

}  // namespace

GLIMPSE_PLUGIN(TestError)
