// Asks for feedback every round: the passive learner of selective sampling (a protocol without a query
// rule behaves the same way; naming the rule makes the baseline explicit).
#include <glimpse/glimpse.hpp>

namespace {

class Always final : public glimpse::QueryRule {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "always",
            .kind = glimpse::PluginKind::query_rule,
            .summary = "queries every round (passive learning)",
            .reference = "Agarwal, ICML 2013, section 5 (the passive learner)"};
  }
  explicit Always(const glimpse::ParamValues&) {}
  bool decide(const glimpse::Instance&, const glimpse::Prediction&, std::int64_t, glimpse::Rng&) override {
    return true;
  }
};

}  // namespace

GLIMPSE_PLUGIN(Always)
