// The round loop allocates nothing: predict, oracle, learn and metrics over many rounds, with every
// allocation in the process counted (this binary replaces the global operator new).
// GCC cannot see that these replacements pair malloc with free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <tuple>

#include "support.hpp"

namespace {
std::atomic<long> allocations{0};
}

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace glimpse::test {
namespace {

void expect_allocation_free(const std::string& learner_name, std::map<std::string, std::string> params,
                            const std::string& oracle_name, const std::string& precision, bool sparse) {
  SCOPED_TRACE(learner_name + " " + precision + (sparse ? " sparse" : " dense"));
  const int k = 5, d = 40;
  const ProblemShape shape{2000, d, k};
  const PluginSpec& spec = *registry().find(learner_name)->spec;
  if (std::any_of(spec.params.begin(), spec.params.end(), [](const ParamSpec& p) { return p.name == "precision"; }))
    params["precision"] = precision;
  auto learner = make<Learner>(learner_name, params, &shape);
  auto oracle = make<FeedbackOracle>(oracle_name);
  // Every metric and query rule loaded, with its defaults (confusion records its matrix every 100 rounds).
  std::vector<std::unique_ptr<Metric>> metrics;
  std::vector<std::unique_ptr<QueryRule>> rules;
  for (const auto* plugin : registry().plugins()) {
    if (plugin->spec->kind == PluginKind::metric)
      metrics.push_back(
          make<Metric>(plugin->spec->name, plugin->spec->name == "confusion"
                                               ? std::map<std::string, std::string>{{"record_every", "100"}}
                                               : std::map<std::string, std::string>{}));
    if (plugin->spec->kind == PluginKind::query_rule) rules.push_back(make<QueryRule>(plugin->spec->name));
  }
  const int rounds = 2000;
  learner->reset({rounds, d, k, sparse}, 1);  // sparse: feature-major weights
  oracle->reset({rounds, d, k});
  for (auto& m : metrics) m->reset({rounds, d, k}, rounds);
  for (auto& rule : rules) rule->reset({rounds, d, k});
  std::vector<DenseRow> dense;
  std::vector<SparseRow> sparse_rows;
  Rng rng(5);
  for (int i = 0; i < 50; ++i) {
    std::vector<Feature> v(d);
    SparseRow s{{}, {}, d};
    for (int j = 0; j < d; ++j) {
      v[j] = static_cast<Feature>(rng.normal());
      if (j % 3 == 0) s.indices.push_back(j), s.values.push_back(v[j]);
    }
    dense.emplace_back(v);
    sparse_rows.push_back(s);
  }
  const std::vector<double> probabilities(k, 1.0 / k);  // p(y|x), for the regret metric
  Prediction pred;
  pred.scores.resize(k);
  const long before = allocations.load();
  for (int t = 1; t <= rounds; ++t) {
    const Instance x = sparse ? sparse_rows[t % 50].view() : dense[t % 50].view();
    const RoundTruth truth{t, static_cast<std::int32_t>(t % k), probabilities};
    learner->predict(x, pred);
    Rng round_rng(derive_key(9, static_cast<std::uint64_t>(t)));
    const Feedback feedback = oracle->respond(x, truth, pred, round_rng);
    learner->learn(x, pred, feedback);
    for (auto& rule : rules) rule->decide(x, pred, t, round_rng);
    for (auto& m : metrics) m->observe({t, &truth, &pred, &feedback, true});
  }
  EXPECT_EQ(allocations.load() - before, 0);
}

TEST(RoundLoop, AllocatesNothingPerRound) {
  // Every online learner in the registry with its defaults and the oracle of its kind, and variants whose other
  // code paths the defaults do not reach. cs_selectron's defaults refit by L-BFGS after every query (on this
  // test's 50 repeated rows with arbitrary labels, over 6 minutes for 2,000 rounds x 4): the refit_growth
  // variant below runs the same refit code less often.
  std::vector<std::tuple<std::string, std::map<std::string, std::string>, std::string>> cases;
  for (const auto* plugin : online_learners())
    if (plugin->spec->name != "cs_selectron")
      cases.emplace_back(plugin->spec->name, std::map<std::string, std::string>{}, oracle_for(*plugin->spec));
  cases.insert(cases.end(), {{"confidit", {{"matrix", "full"}}, "bandit"},
                             {"copa", {}, "noisy_label"},
                             {"cs_selectron", {{"costs", "tree"}, {"link", "linear"}}, "full"},
                             {"cs_selectron", {{"refit_growth", "0.1"}}, "full"},
                             {"cs_selectron", {{"solver", "ons"}}, "full"}});
  ASSERT_GE(cases.size(), 24u);
  for (const auto& [learner, params, oracle] : cases)
    for (const char* precision : {"float", "double"})
      for (bool sparse : {false, true}) expect_allocation_free(learner, params, oracle, precision, sparse);
}

}  // namespace
}  // namespace glimpse::test
