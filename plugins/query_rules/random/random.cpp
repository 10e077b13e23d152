// Queries each round with a fixed probability, independently of the data (the selective-sampling paper's
// Random baseline), optionally until a budget of queries is spent.
#include <glimpse/glimpse.hpp>

namespace {

class RandomRule final : public glimpse::QueryRule {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "random",
            .kind = glimpse::PluginKind::query_rule,
            .summary = "queries with probability `probability`, independently of x; at most `budget` queries",
            .reference = "Agarwal, ICML 2013, section 5 (Random)",
            .params = {glimpse::ParamSpec::real("probability", "0.1", "query probability per round")
                           .above(0)
                           .at_most(1)
                           .into(&RandomRule::probability_),
                       glimpse::ParamSpec::integer("budget", "0", "most queries in a run (0: no limit)")
                           .at_least(0)
                           .into(&RandomRule::budget_)}};
  }
  void reset(const glimpse::ProblemShape&) override { queries_ = 0; }
  bool decide(const glimpse::Instance&, const glimpse::Prediction&, std::int64_t, glimpse::Rng& rng) override {
    const bool ask = rng.uniform() < probability_ && (budget_ == 0 || queries_ < budget_);
    queries_ += ask;
    return ask;
  }

 private:
  double probability_ = 0.1;
  std::int64_t budget_ = 0;
  std::int64_t queries_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(RandomRule)
