// Selective-sampling sweeps: determinism across thread counts, fresh generator rows per trial, learners'
// own query rules and rule grids, and the safety switch's labels in the trace.
#include <set>

#include "hdf5.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(SelectiveSampling, AnyLearnerUnderAnyRuleIsDeterministicAcrossThreadCounts) {
  TempDir dir;
  const Protocol protocol = parse_protocol(R"({"name": "ss",
      "datasets": [{"source": "glm_mixture", "params": {"num_classes": 3, "dim": 30, "n": 400}}],
      "oracle": {"name": "full"}, "query_rule": {"name": "bbq", "params": {"kappa": 0.3}},
      "learners": [{"name": "perceptron"}, {"name": "spa"}],
      "metrics": [{"name": "regret"}, {"name": "queries"}], "seeds": 3})",
                                           "ss.json", ".", registry());
  sweep_quietly(protocol, dir.path() / "one.h5", 1);
  sweep_quietly(protocol, dir.path() / "two.h5", 2);
  const h5::Handle one = h5::open_file(dir.path() / "one.h5", false), two = h5::open_file(dir.path() / "two.h5", false);
  for (const std::string id : {"000000", "000004"}) {
    const auto queried = h5::read_vector<std::uint8_t>(h5::open_group(one, "runs/" + id + "/rounds"), "queried");
    EXPECT_EQ(queried, h5::read_vector<std::uint8_t>(h5::open_group(two, "runs/" + id + "/rounds"), "queried"));
    const auto asked = std::count(queried.begin(), queried.end(), 1);
    EXPECT_GT(asked, 0);
    EXPECT_LT(asked, 400);
    const h5::Handle summary = h5::open_group(one, "runs/" + id + "/summary");
    EXPECT_EQ(h5::read_double_attribute(summary, "queries"), static_cast<double>(asked));
    EXPECT_GT(h5::read_double_attribute(summary, "regret"), 0.0);
  }
}

// glm_mixture's trials: with per_trial = rows every seed draws its own instances around the same cluster means
// (W* from `seed`), with all the means too; a draw depends only on its key; and a sweep over such a source is
// still the same whatever the thread count.
TEST(SelectiveSampling, GeneratorDrawsFreshRowsPerTrial) {
  const auto labels = [](const Dataset& data) {
    return std::vector<std::int32_t>(data.labels().begin(), data.labels().end());
  };
  const auto distinct_rows = [](const Dataset& data) {
    std::set<std::vector<float>> rows;
    for (std::int64_t i = 0; i < data.size(); ++i) {
      const Instance x = data.row(i);
      rows.insert(std::vector<float>(x.values, x.values + x.dim));
    }
    return rows;
  };
  // noise 0: every instance is one of the K means exactly.
  const std::map<std::string, std::string> common{
      {"num_classes", "3"}, {"dim", "8"}, {"latent_dim", "2"}, {"n", "60"}, {"noise", "0"}};
  auto with = [&](const std::string& per_trial) {
    auto params = common;
    params["per_trial"] = per_trial;
    return make<DataSource>("glm_mixture", params);
  };
  EXPECT_FALSE(with("none")->per_seed());
  const auto rows = with("rows"), all = with("all");
  ASSERT_TRUE(rows->per_seed());
  const Dataset a = rows->load_for_seed({0, 11, {}, {}}), b = rows->load_for_seed({1, 12, {}, {}});
  const Dataset a_again = rows->load_for_seed({0, 11, {}, {}});
  EXPECT_EQ(labels(a), labels(a_again));
  EXPECT_EQ(distinct_rows(a), distinct_rows(a_again));
  EXPECT_NE(labels(a), labels(b));                // fresh labels (and cluster choices) per trial
  EXPECT_EQ(distinct_rows(a), distinct_rows(b));  // around the same three means
  EXPECT_EQ(distinct_rows(a).size(), 3u);
  const Dataset c = all->load_for_seed({0, 11, {}, {}}), d = all->load_for_seed({1, 12, {}, {}});
  EXPECT_NE(distinct_rows(c), distinct_rows(d));  // per_trial all: new means too

  TempDir dir;
  const Protocol protocol = parse_protocol(R"({"name": "trials",
      "datasets": [{"source": "glm_mixture", "params": {"num_classes": 3, "dim": 20, "n": 300, "per_trial": "rows"}}],
      "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}],
      "metrics": [{"name": "regret"}], "seeds": 3})",
                                           "trials.json", ".", registry());
  sweep_quietly(protocol, dir.path() / "one.h5", 1);
  sweep_quietly(protocol, dir.path() / "two.h5", 2);
  const h5::Handle one = h5::open_file(dir.path() / "one.h5", false), two = h5::open_file(dir.path() / "two.h5", false);
  std::set<double> regrets;
  for (const std::string id : {"000000", "000001", "000002"}) {
    const double regret = h5::read_double_attribute(h5::open_group(one, "runs/" + id + "/summary"), "regret");
    EXPECT_EQ(regret, h5::read_double_attribute(h5::open_group(two, "runs/" + id + "/summary"), "regret"));
    regrets.insert(regret);
  }
  EXPECT_EQ(regrets.size(), 3u);
}

// The paper's comparison in one protocol: a passive baseline (rule "always") beside rules with grids of their
// own, all on the same learner; each rule setting is a grid point of its own in reports.
TEST(SelectiveSampling, LearnersCarryTheirOwnQueryRulesAndRuleGrids) {
  TempDir dir;
  const Protocol protocol = parse_protocol(R"({"name": "ss",
      "datasets": [{"source": "glm_mixture", "params": {"num_classes": 3, "dim": 10, "n": 300}}],
      "oracle": {"name": "full"}, "query_rule": {"name": "bbq", "grid": {"kappa": [0.2, 0.6]}},
      "learners": [{"name": "perceptron", "as": "passive", "query_rule": {"name": "always"}},
                   {"name": "perceptron", "as": "random", "grid": {"margin": [0, 0.5]},
                    "query_rule": {"name": "random", "grid": {"probability": [0.1, 0.5, 0.9]}}},
                   {"name": "perceptron", "as": "bbq"}],
      "metrics": [{"name": "queries"}], "selection": {"goal": "max"}, "seeds": 2})",
                                           "ss.json", ".", registry());
  ASSERT_EQ(protocol.query_rule_for(0)->name(), "always");
  ASSERT_EQ(protocol.query_rule_for(2)->name(), "bbq");
  sweep_quietly(protocol, dir.path() / "ss.h5");
  const h5::Handle file = h5::open_file(dir.path() / "ss.h5", false);
  const auto runs = read_run_summaries(file);
  // 1 + 2 x 3 + 2 grid points, 2 seeds each; the rule's grid varies fastest.
  ASSERT_EQ(runs.size(), 18u);
  const auto queries = [](const RunSummary& run) { return run.metrics.front().value; };
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(queries(runs[i]), 300.0);
  std::vector<std::string> random_params;
  for (std::size_t point = 0; point < 6; ++point) {
    const RunSummary& run = runs[2 + 2 * point];
    EXPECT_EQ(run.grid_point, static_cast<std::int64_t>(point));
    random_params.push_back(run.params);
    const h5::Handle group = h5::open_group(file, "runs/" + run.id);
    EXPECT_EQ(h5::read_string_attribute(group, "query_rule"), "random");
    const double probability = std::array{0.1, 0.5, 0.9}[point % 3];
    const std::string expected_params[] = {R"({"probability":0.1,"budget":0})", R"({"probability":0.5,"budget":0})",
                                           R"({"probability":0.9,"budget":0})"};
    EXPECT_EQ(h5::read_string_attribute(group, "query_rule_params"), expected_params[point % 3]);
    // Binomial(300, p): within 5 standard deviations.
    EXPECT_NEAR(queries(run), 300 * probability, 5 * std::sqrt(300 * probability * (1 - probability)));
  }
  EXPECT_NE(random_params[0], random_params[1]);
  EXPECT_NE(random_params[0], random_params[3]);
  EXPECT_EQ(runs[14].grid_point, 0);
  EXPECT_EQ(runs[16].grid_point, 1);
  EXPECT_EQ(h5::read_string_attribute(h5::open_group(file, "runs/" + runs[16].id), "query_rule_params"),
            R"({"kappa":0.6,"m0":1,"second_order":"exact","sketch_rank":20})");
  // Reports keep every (learner, rule setting) apart: 1 + 6 + 2 rows.
  EXPECT_EQ(summarize(runs, "queries", true, true).size(), 9u);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

// In a sweep: the extra labels are paid for (the queries metric counts them) and the learner's report reaches
// the trace as learner_* scalars.
TEST(SelectiveSampling, SafetySwitchLabelsReachTheQueriesMetricAndTheTrace) {
  TempDir dir;
  const Protocol protocol = parse_protocol(R"({"name": "safe",
      "datasets": [{"source": "glm_mixture", "params": {"num_classes": 3, "dim": 10, "n": 400}}],
      "oracle": {"name": "label_on_query"}, "query_rule": {"name": "random", "params": {"probability": 0.2}},
      "learners": [{"name": "cs_selectron", "as": "plain", "params": {"link": "linear"}},
                   {"name": "cs_selectron", "as": "safe", "params": {"link": "linear", "safety": true}}],
      "metrics": [{"name": "queries"}], "seeds": 2})",
                                           "safe.json", ".", registry());
  sweep_quietly(protocol, dir.path() / "safe.h5");
  const h5::Handle file = h5::open_file(dir.path() / "safe.h5", false);
  const auto runs = read_run_summaries(file);
  ASSERT_EQ(runs.size(), 4u);
  for (int seed = 0; seed < 2; ++seed) {
    const RunSummary& plain = runs[static_cast<std::size_t>(seed)];
    const RunSummary& safe = runs[static_cast<std::size_t>(2 + seed)];
    ASSERT_EQ(plain.seed, safe.seed);
    const auto value = [](const RunSummary& run, const std::string& name) {
      for (const auto& [metric, v] : run.metrics)
        if (metric == name) return v;
      ADD_FAILURE() << "no " << name << " in run " << run.id;
      return -1.0;
    };
    // The rule's draws do not depend on the learner, so the safe run pays its rule's labels plus one audit per
    // rule query whose next round the rule skipped.
    const double rule_queries = value(plain, "queries");
    const double audits = value(safe, "learner_safety_audits");
    EXPECT_GT(audits, 0.5 * rule_queries);
    EXPECT_LE(audits, rule_queries);
    EXPECT_LE(value(safe, "queries"), rule_queries + audits);
    EXPECT_GT(value(safe, "queries"), rule_queries);
    EXPECT_EQ(value(safe, "learner_safety_switch_round"), 0.0);  // well-specified data, the paper's margin
  }
}

// label_on_query is the selective-sampling name of the labeller: under a rule it gives exactly what `full`
// gives, and the learner learns only on queried rounds (the run differs from an always-queried one).
TEST(SelectiveSampling, LabelOnQueryOracleLabelsExactlyTheQueriedRounds) {
  TempDir dir;
  const auto run = [&](const std::string& oracle, const std::string& rule) {
    const Protocol protocol = parse_protocol(R"({"name": "ss",
        "datasets": [{"source": "glm_mixture", "params": {"num_classes": 3, "dim": 10, "n": 300}}],
        "oracle": {"name": ")" + oracle + R"("}, "query_rule": {"name": ")" +
                                                 rule + R"("},
        "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}, {"name": "queries"}]})",
                                             "ss.json", ".", registry());
    sweep_quietly(protocol, dir.path() / (oracle + rule + ".h5"));
    const h5::Handle file = h5::open_file(dir.path() / (oracle + rule + ".h5"), false);
    const h5::Handle rounds = h5::open_group(file, "runs/000000/rounds");
    return std::pair(h5::read_vector<std::uint8_t>(rounds, "queried"),
                     h5::read_vector<std::int32_t>(rounds, "predicted"));
  };
  const auto labelled = run("label_on_query", "random");
  EXPECT_EQ(labelled, run("full", "random"));
  const auto asked = std::count(labelled.first.begin(), labelled.first.end(), 1);
  EXPECT_GT(asked, 10);
  EXPECT_LT(asked, 100);
  EXPECT_NE(labelled.second, run("label_on_query", "always").second);
}

}  // namespace
}  // namespace glimpse::test
