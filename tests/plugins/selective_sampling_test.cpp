// Selective sampling: the Sherman-Morrison inverse, the query rules, cost matrices, and the regret,
// cost and queries metrics.
#include <Eigen/Dense>
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/algorithms/inverse_tracker.hpp>
#include <glimpse/algorithms/logistic_glm.hpp>
#include <numbers>
#include <set>

#include "hdf5.hpp"
#include "orchestrator.hpp"
#include "summary.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(InverseTracker, IncrementalInverseEqualsTheDirectInverse) {
  for (const auto seed : property_seeds(20)) {
    Rng rng(seed);
    const int d = 3 + static_cast<int>(rng.below(8));
    const double m0 = 0.1 + rng.uniform();
    algorithms::InverseTracker tracker;
    tracker.reset(d, m0);
    Eigen::MatrixXd m = m0 * Eigen::MatrixXd::Identity(d, d);
    for (int t = 0; t < 40; ++t) {
      std::vector<Feature> v(static_cast<std::size_t>(d));
      for (auto& x : v) x = static_cast<Feature>(rng.normal());
      const DenseRow row(v);
      const double r = tracker.quadratic(row.view());
      Eigen::VectorXd x(d);
      for (int j = 0; j < d; ++j) x[j] = v[static_cast<std::size_t>(j)];
      EXPECT_NEAR(r, x.dot(m.inverse() * x), 1e-10 * (1 + r));
      tracker.add_last(r);
      m += x * x.transpose();
    }
    // Relative to the entries of M^{-1}, after 40 rank-one updates.
    const Eigen::MatrixXd direct = m.inverse();
    EXPECT_LT((tracker.inverse() - direct).cwiseAbs().maxCoeff(), 1e-10 * direct.cwiseAbs().maxCoeff());
  }
  // A sparse row gives the same form as its dense twin.
  algorithms::InverseTracker a, b;
  a.reset(5, 1.0);
  b.reset(5, 1.0);
  const DenseRow dense({0, 2, 0, -1, 0});
  const SparseRow sparse{{1, 3}, {2, -1}, 5};
  const double ra = a.quadratic(dense.view()), rb = b.quadratic(sparse.view());
  EXPECT_DOUBLE_EQ(ra, 5.0);  // ||x||^2 / m0
  EXPECT_DOUBLE_EQ(ra, rb);
  EXPECT_EQ(error_of([] { algorithms::InverseTracker().reset(60000, 1.0); }),
            "the query rule keeps a d x d matrix; d = 60000 needs 28800 MB (reduce d, e.g. with a projection)");
}

// Draws i.i.d. Gaussian rows of dimension d and counts a rule's queries per block of rounds.
std::vector<int> queries_per_block(QueryRule& rule, int d, int blocks, int block_size) {
  rule.reset({blocks * block_size, d, 3});
  Rng rng(4);
  Prediction pred;
  pred.scores = {1.0, 0.0, -1.0};
  std::vector<int> counts(static_cast<std::size_t>(blocks), 0);
  std::vector<Feature> v(static_cast<std::size_t>(d));
  for (std::int64_t t = 1; t <= blocks * block_size; ++t) {
    for (auto& x : v) x = static_cast<Feature>(rng.normal() / std::sqrt(d));
    const DenseRow row(v);
    Rng round_rng(derive_key(8, static_cast<std::uint64_t>(t)));
    counts[static_cast<std::size_t>((t - 1) / block_size)] += rule.decide(row.view(), pred, t, round_rng);
  }
  return counts;
}

TEST(QueryRules, BbqAndDgsQueryLessAsTheyLearnRandomKeepsItsRate) {
  const auto bbq = queries_per_block(*make<QueryRule>("bbq", {{"kappa", "0.5"}}), 5, 4, 1000);
  EXPECT_GT(bbq[0], bbq[3]);
  EXPECT_GT(bbq[0], 0);
  const auto eps = queries_per_block(*make<QueryRule>("bbq_eps", {{"eps", "0.1"}}), 5, 4, 1000);
  EXPECT_GT(eps[0], eps[3]);
  // DGS with a fixed score gap of 1: queries while c sqrt(r) >= 1, i.e. while x is poorly covered.
  const auto dgs = queries_per_block(*make<QueryRule>("dgs", {{"c", "5"}}), 5, 4, 1000);
  EXPECT_GT(dgs[0], dgs[3]);
  const auto random = queries_per_block(*make<QueryRule>("random", {{"probability", "0.2"}}), 5, 4, 1000);
  for (int c : random) EXPECT_NEAR(c / 1000.0, 0.2, 0.04);
  const auto budget =
      queries_per_block(*make<QueryRule>("random", {{"probability", "0.5"}, {"budget", "30"}}), 5, 4, 100);
  EXPECT_EQ(budget[0] + budget[1] + budget[2] + budget[3], 30);
  const auto always = queries_per_block(*make<QueryRule>("always"), 5, 2, 10);
  EXPECT_EQ(always, (std::vector<int>{10, 10}));
}

TEST(QueryRules, DgsComparesTheScoreGapWithTheUncertaintyByHand) {
  auto dgs = make<QueryRule>("dgs", {{"c", "1"}});
  dgs->reset({10, 2, 3});
  const DenseRow x({0.6f, 0.8f});  // ||x|| = 1: r = 1 before any query
  Prediction pred;
  Rng rng(1);
  pred.scores = {2.0, 0.5, 0.0};  // gap 1.5 > 1 * sqrt(1)
  EXPECT_FALSE(dgs->decide(x.view(), pred, 1, rng));
  pred.scores = {0.3, 1.0, 0.2};  // gap 0.7 <= 1: query, then r = 1/2 for the same x
  EXPECT_TRUE(dgs->decide(x.view(), pred, 2, rng));
  pred.scores = {0.0, 0.75, 0.0};  // gap 0.75 > sqrt(1/2) = 0.707
  EXPECT_FALSE(dgs->decide(x.view(), pred, 3, rng));
}

ParamValues cost_values(const std::map<std::string, std::string>& overrides) {
  ParamValues values;
  for (const auto& p : algorithms::cost_params()) {
    const auto it = overrides.find(p.name);
    values.set(p.name, *(it != overrides.end() ? resolve_param(p, it->second, nullptr) : resolve_default(p, nullptr)));
  }
  return values;
}

TEST(CostMatrices, BuiltInShapesBayesChoiceAndFileValidation) {
  algorithms::CostMatrix block(cost_values({{"costs", "block"}, {"cost_groups", "2"}}));
  block.reset(4);
  EXPECT_EQ(block(0, 1), 0.0);
  EXPECT_EQ(block(1, 2), 1.0);
  // p = (0.3, 0.3, 0.4, 0): 0/1 costs pick class 3 (index 2), block costs the group {1, 2} (expected cost of
  // predicting 1 is p3 + p4 = 0.4 < 0.6 for predicting 3).
  const std::vector<double> p{0.3, 0.3, 0.4, 0.0};
  algorithms::CostMatrix zero_one(cost_values({}));
  zero_one.reset(4);
  EXPECT_EQ(zero_one.bayes(p), 2);
  EXPECT_EQ(block.bayes(p), 0);
  EXPECT_NEAR(block.expected(p, 0), 0.4, 1e-15);
  algorithms::CostMatrix tree(cost_values({{"costs", "tree"}}));
  tree.reset(4);  // leaves 1,2 | 3,4 under one root: siblings 2 edges apart, cousins 4
  EXPECT_EQ(tree(0, 1), 2.0);
  EXPECT_EQ(tree(0, 2), 4.0);
  EXPECT_EQ(tree(3, 2), 2.0);
  EXPECT_EQ(tree.max(), 4.0);

  TempDir dir;
  const auto file = dir.path() / "costs.csv";
  { std::ofstream(file) << "0,1,5\n2,0,1\n1,1,0\n"; }
  algorithms::CostMatrix from_file(cost_values({{"costs", "file"}, {"cost_file", file.string()}}));
  from_file.reset(3);
  EXPECT_EQ(from_file(0, 2), 5.0);
  EXPECT_EQ(error_of([&] { from_file.reset(4); }),
            file.string() + ": is a 3 x 3 matrix; expected K x K = 4 x 4 (rows and columns are the classes in order)");
  { std::ofstream(file) << "0,1\n2,3\n"; }
  EXPECT_EQ(error_of([&] {
              algorithms::CostMatrix(cost_values({{"costs", "file"}, {"cost_file", file.string()}}));
            }),
            file.string() + ":2: diagonal entry 2 is 3; a correct prediction must cost 0");
  { std::ofstream(file) << "0,-1\n2,0\n"; }
  EXPECT_EQ(error_of([&] {
              algorithms::CostMatrix(cost_values({{"costs", "file"}, {"cost_file", file.string()}}));
            }),
            file.string() + ":1: entry 2 is -1; expected a non-negative cost");
  EXPECT_EQ(error_of([&] {
              algorithms::CostMatrix(cost_values({{"costs", "file"}}));
            }),
            "costs = file needs the cost_file parameter");
}

TEST(SelectiveSamplingMetrics, RegretOfTheBayesPredictorIsZeroAndOthersByHand) {
  auto regret = make<Metric>("regret", {{"costs", "block"}, {"cost_groups", "2"}});
  auto cost = make<Metric>("cost", {{"costs", "block"}, {"cost_groups", "2"}});
  auto queries = make<Metric>("queries", {{"record_every", "2"}});
  for (auto* m : {regret.get(), cost.get(), queries.get()}) m->reset({3, 1, 4}, 3);
  const std::vector<double> p{0.3, 0.3, 0.4, 0.0};
  Prediction pred;
  const Feedback none = NoFeedback{};
  // Round 1: the Bayes label (0); round 2: label 1, same group, also optimal; round 3: label 2, expected cost
  // 0.6 against the optimum 0.4. True label 2 every round: realised block costs 1, 1, 0.
  const int predicted[] = {0, 1, 2};
  for (std::int64_t t = 1; t <= 3; ++t) {
    pred.predicted = pred.proposed = predicted[t - 1];
    const RoundTruth truth{t, 2, p};
    for (auto* m : {regret.get(), cost.get(), queries.get()}) m->observe({t, &truth, &pred, &none, t != 2});
  }
  MetricResults r, c, q;
  regret->report(r);
  cost->report(c);
  queries->report(q);
  EXPECT_NEAR(r.scalars[0].value, 0.2, 1e-15);
  EXPECT_EQ(r.curves.size(), 1u);
  EXPECT_EQ(c.scalars[0].value, 2.0);
  EXPECT_DOUBLE_EQ(c.scalars[1].value, 2.0 / 3);
  EXPECT_EQ(q.scalars[0].value, 2.0);
  EXPECT_DOUBLE_EQ(q.scalars[1].value, 2.0 / 3);
  EXPECT_EQ(q.curves[0].rounds, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(q.curves[0].values, (std::vector<double>{1, 2}));
  // The Bayes predictor itself accumulates exactly zero regret.
  regret->reset({3, 1, 4}, 3);
  for (std::int64_t t = 1; t <= 3; ++t) {
    pred.predicted = pred.proposed = 0;
    const RoundTruth truth{t, 2, p};
    regret->observe({t, &truth, &pred, &none, true});
  }
  MetricResults bayes;
  regret->report(bayes);
  EXPECT_EQ(bayes.scalars[0].value, 0.0);
  // Streams without p(y|x) are refused.
  const RoundTruth bare{1, 0, {}};
  EXPECT_EQ(error_of([&] {
              regret->observe({1, &bare, &pred, &none, true});
            }),
            "the regret metric needs the true p(y|x), which only synthetic streams provide (glm_mixture, gaussians)");
}

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
  const std::map<std::string, std::string> common{{"num_classes", "3"}, {"dim", "8"}, {"latent_dim", "2"},
                                                  {"n", "60"}, {"noise", "0"}};
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
  EXPECT_NE(labels(a), labels(b));               // fresh labels (and cluster choices) per trial
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
      "metrics": [{"name": "queries"}], "seeds": 2})",
                                           "ss.json", ".", registry());
  ASSERT_EQ(protocol.query_rule_for(0)->name(), "always");
  ASSERT_EQ(protocol.query_rule_for(2)->name(), "bbq");
  sweep_quietly(protocol, dir.path() / "ss.h5");
  const h5::Handle file = h5::open_file(dir.path() / "ss.h5", false);
  const auto runs = read_run_summaries(file);
  // 1 + 2 x 3 + 2 grid points, 2 seeds each; the rule's grid varies fastest.
  ASSERT_EQ(runs.size(), 18u);
  const auto queries = [](const RunSummary& run) { return run.metrics.front().second; };
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
            R"({"kappa":0.6,"m0":1})");
  // Reports keep every (learner, rule setting) apart: 1 + 6 + 2 rows.
  EXPECT_EQ(summarize(runs, "queries", true, true).size(), 9u);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

TEST(CsSelectron, LinearLinkFitIsTheRegularisedOptimumOverTheLabelledRounds) {
  const int k = 3, d = 4;
  const double gamma = 0.5;
  const ProblemShape shape{50, d, k};
  auto learner = make<Learner>("cs_selectron", {{"gamma", "0.5"}, {"link", "linear"}}, &shape);
  learner->reset(shape, 1);
  Rng rng(6);
  Prediction pred;
  pred.scores.resize(k);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(d, d), b = Eigen::MatrixXd::Zero(k, d);
  std::vector<Eigen::VectorXd> xs;
  std::vector<int> ys;
  for (int t = 0; t < 30; ++t) {
    std::vector<Feature> v(d);
    for (auto& x : v) x = static_cast<Feature>(rng.normal());
    const DenseRow row(v);
    learner->predict(row.view(), pred);
    const bool labelled = t % 3 != 1;  // some rounds unqueried: they must not count
    const int y = static_cast<int>(rng.below(k));
    learner->learn(row.view(), pred, labelled ? Feedback{LabelFeedback{y}} : Feedback{NoFeedback{}});
    if (!labelled) continue;
    Eigen::VectorXd x(d);
    for (int j = 0; j < d; ++j) x[j] = v[static_cast<std::size_t>(j)];
    xs.push_back(x);
    ys.push_back(y);
    a += x * x.transpose();
    for (int i = 0; i < k; ++i) b.row(i) += ((i == y ? 1.0 : 0.0) - 1.0 / k) * x.transpose();
  }
  const Eigen::MatrixXd w = b * (a + 2 * gamma * Eigen::MatrixXd::Identity(d, d)).inverse();
  // The gradient of sum_s Phi(W x_s) - e_y^T W x_s + gamma ||W||^2, with grad Phi(v) = v - (sum v - 1)/K 1.
  Eigen::MatrixXd gradient = 2 * gamma * w;
  for (std::size_t s = 0; s < xs.size(); ++s) {
    Eigen::VectorXd v = w * xs[s];
    Eigen::VectorXd residual = v - Eigen::VectorXd::Constant(k, (v.sum() - 1.0) / k);
    residual[ys[s]] -= 1.0;
    gradient += residual * xs[s].transpose();
  }
  EXPECT_LT(gradient.cwiseAbs().maxCoeff(), 1e-10);
  // With 0/1 costs the scores are the model's probabilities p = grad Phi(W x).
  const DenseRow probe({0.5f, -1.0f, 0.25f, 2.0f});
  learner->predict(probe.view(), pred);
  Eigen::VectorXd x(d);
  x << 0.5, -1.0, 0.25, 2.0;
  const Eigen::VectorXd v = w * x;
  for (int i = 0; i < k; ++i) EXPECT_NEAR(pred.scores[static_cast<std::size_t>(i)], v[i] - (v.sum() - 1.0) / k, 1e-9);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

// Two classes, one feature x = 1: a labels of class 1 and b of class 2 with the last row fixed at 0 leave
// F(w) = a [log(1 + e^w) - w] + b log(1 + e^w) + gamma w^2, whose minimiser solves
// (a + b) sigmoid(w) - a + 2 gamma w = 0 (by bisection here); p(class 1 | x = 1) = sigmoid(w).
double two_class_optimum(double a, double b, double gamma) {
  double lo = -20, hi = 20;
  for (int i = 0; i < 200; ++i) {
    const double w = (lo + hi) / 2;
    ((a + b) / (1 + std::exp(-w)) - a + 2 * gamma * w > 0 ? hi : lo) = w;
  }
  return (lo + hi) / 2;
}

TEST(CsSelectron, LogisticLinkMatchesAHandSolvedTwoClassCase) {
  const ProblemShape shape{10, 1, 2};
  for (const double gamma : {0.5, 2.0}) {
    auto learner = make<Learner>("cs_selectron", {{"gamma", std::to_string(gamma)}}, &shape);
    learner->reset(shape, 1);
    Prediction pred;
    pred.scores.resize(2);
    const DenseRow one({1.0f});
    for (const int y : {0, 0, 1, 0}) {
      learner->predict(one.view(), pred);
      learner->learn(one.view(), pred, Feedback{LabelFeedback{y}});
    }
    learner->predict(one.view(), pred);
    const double w = two_class_optimum(3, 1, gamma);
    EXPECT_NEAR(pred.scores[0], 1 / (1 + std::exp(-w)), 1e-6) << "gamma " << gamma;
    EXPECT_NEAR(pred.scores[0] + pred.scores[1], 1.0, 1e-12);
    EXPECT_EQ(pred.predicted, 0);
  }
}

TEST(CsSelectron, LogisticFitReachesTheOptimumAndItsGradientIsExact) {
  const int k = 4, d = 6;
  for (const bool last_row_zero : {true, false}) {
    SCOPED_TRACE(last_row_zero ? "last_row_zero" : "none");
    algorithms::LogisticGlm glm;
    algorithms::LogisticGlm::Options options;
    options.gamma = 0.05;
    options.last_row_zero = last_row_zero;
    glm.reset(k, d, options);
    Rng rng(8);
    Eigen::VectorXd x(d);
    for (int t = 0; t < 60; ++t) {
      for (int j = 0; j < d; ++j) x[j] = rng.normal();
      glm.add(x, static_cast<std::int32_t>(rng.below(k)));
      // Every labelled round refits to the stated tolerance.
      ASSERT_TRUE(glm.last_fit().converged) << "round " << t;
      ASSERT_LE(glm.last_fit().gradient_norm, 1e-6);
    }
    EXPECT_EQ(glm.refits(), 60);
    // The refits start from F's gradient kept up to date sample by sample; a fresh pass at the fit agrees.
    {
      Eigen::VectorXd fresh(glm.weights().size());
      glm.objective(glm.weights(), fresh);
      EXPECT_LE(fresh.lpNorm<Eigen::Infinity>(), 1e-6);
    }
    // The gradient the solver trusts equals central finite differences of F at a random point.
    Eigen::VectorXd w = glm.weights(), gradient(w.size()), unused(w.size());
    for (Eigen::Index i = 0; i < w.size(); ++i) w[i] += 0.3 * rng.normal();
    glm.objective(w, gradient);
    for (Eigen::Index i = 0; i < w.size(); ++i) {
      const double h = 1e-5;
      Eigen::VectorXd up = w, down = w;
      up[i] += h, down[i] -= h;
      EXPECT_NEAR(gradient[i], (glm.objective(up, unused) - glm.objective(down, unused)) / (2 * h), 1e-5);
    }
    // And the fitted W is a minimum: any small move raises F.
    const double at_fit = glm.objective(glm.weights(), unused);
    for (int trial = 0; trial < 20; ++trial) {
      Eigen::VectorXd moved = glm.weights();
      for (Eigen::Index i = 0; i < moved.size(); ++i) moved[i] += 1e-3 * rng.normal();
      EXPECT_GT(glm.objective(moved, unused), at_fit);
    }
  }
}

TEST(CsSelectron, OnlineNewtonStepTracksTheExactRefitOnAWellSpecifiedModel) {
  // Samples from a 3-class logit model in 4 dimensions: after 2,000 labelled rounds the Online Newton Step's
  // model predicts held-out points about as well as the exact refit of eq. 9 (its probabilities within a few
  // hundredths, its log-loss within 1%), without a single pass over the labelled set; a step of the wrong sign
  // or scale would diverge or stall.
  const int k = 3, d = 4, n = 2000;
  Eigen::MatrixXd truth(k, d);
  truth << 1.5, -1.0, 0.5, 0.0, -0.5, 1.0, -1.5, 0.5, 0.0, 0.0, 0.0, 0.0;
  algorithms::LogisticGlm exact, ons;
  algorithms::LogisticGlm::Options options;
  options.gamma = 0.05;
  options.tolerance = 1e-6;
  options.refit_growth = 0.1;  // only the final fit matters here
  exact.reset(k, d, options, n);
  options.solver = algorithms::LogisticGlm::Solver::ons;
  ons.reset(k, d, options, n);
  Rng rng(3);
  Eigen::VectorXd x(d), p(k), q(k), z(k);
  auto draw = [&] {
    for (int j = 0; j < d; ++j) x[j] = rng.normal();
    z = truth * x;
    z = (z.array() - z.maxCoeff()).exp();
    z /= z.sum();
    return rng.sample({z.data(), static_cast<std::size_t>(k)});
  };
  for (int t = 0; t < n; ++t) {
    const std::int32_t y = draw();
    exact.add(x, y);
    ons.add(x, y);
  }
  exact.refit();
  EXPECT_EQ(ons.passes(), 0);
  double gap = 0.0, loss_exact = 0.0, loss_ons = 0.0;
  const int held_out = 2000;
  for (int t = 0; t < held_out; ++t) {
    const std::int32_t y = draw();
    exact.probabilities(x, p);
    loss_exact += exact.last_loss(y);
    ons.probabilities(x, q);
    loss_ons += ons.last_loss(y);
    gap += (p - q).cwiseAbs().maxCoeff();
  }
  EXPECT_LT(gap / held_out, 0.02);  // measured: 0.008
  EXPECT_LT(loss_ons, 1.01 * loss_exact);
  EXPECT_GT(loss_ons, 0.99 * loss_exact);
}

TEST(CsSelectron, GeometricRefitScheduleBoundsTheRefits) {
  algorithms::LogisticGlm glm;
  algorithms::LogisticGlm::Options options;
  options.refit_growth = 0.25;
  glm.reset(3, 2, options);
  Eigen::VectorXd x(2);
  std::vector<std::int64_t> refitted_at;
  for (int t = 1; t <= 40; ++t) {
    x << t % 5, 1.0;
    if (glm.add(x, t % 3)) refitted_at.push_back(t);
  }
  // Every round while 1.25 n rounds up to n + 1 (n <= 4), then at ceil(1.25 n): 5 -> 7 -> 9 -> 12 -> 15 -> 19
  // -> 24 -> 30 -> 38.
  EXPECT_EQ(refitted_at, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 7, 9, 12, 15, 19, 24, 30, 38}));
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

TEST(CostMatrices, ColumnVariationOfZeroOneAndBlockCostsIsTheClosedForm) {
  for (const int k : {3, 4, 10}) {
    algorithms::CostMatrix zero_one(cost_values({}));
    zero_one.reset(k);
    EXPECT_NEAR(zero_one.column_variation(), 1.0 - 1.0 / k, 1e-12);
  }
  algorithms::CostMatrix block(cost_values({{"costs", "block"}, {"cost_groups", "2"}}));
  block.reset(10);  // (K / r)(1 - 1 / r) = 5 * 0.5
  EXPECT_NEAR(block.column_variation(), 2.5, 1e-12);
}

// theta_1 for d = 2, K = 3, m0 = 1 (gamma = gamma_l = 1/(9e)), R = omega = 1, delta = 0.05: the formula of
// ALGORITHMS.md 7.1 written out once more here.
double theta_one() {
  const double gamma_l = 1.0 / (9.0 * std::numbers::e);
  return 8.0 * std::sqrt(6.0) / gamma_l * std::sqrt(std::log(3.0) * std::log(6.0 / 0.05)) + std::sqrt(2.0);
}

TEST(QueryRules, TheoryMultipliersFollowThetaT) {
  const DenseRow x({0.6f, 0.8f});  // ||x|| = 1: r = 1 on the first round
  Prediction pred;
  Rng rng(1);
  const double sigma = std::sqrt(2.0 / 3.0);  // 0/1 costs, K = 3
  const double eta_dgs = 2.0 * sigma * theta_one();
  ASSERT_GT(eta_dgs, 1000.0);  // the theory's constants are loose: ~1.8e3 here
  for (const double factor : {0.99, 1.01}) {
    auto dgs = make<QueryRule>("dgs", {{"eta_mode", "theory"}});
    dgs->reset({10, 2, 3});
    pred.scores = {factor * eta_dgs, 0.0, 0.0};  // gap = factor * eta_DGS * sqrt(r)
    EXPECT_EQ(dgs->decide(x.view(), pred, 1, rng), factor < 1) << factor;
  }
  const double eta_eps = 4.0 * sigma * sigma * theta_one() * theta_one();
  for (const double factor : {0.99, 1.01}) {
    auto bbq_eps =
        make<QueryRule>("bbq_eps", {{"eta_mode", "theory"}, {"eps", std::to_string(std::sqrt(factor * eta_eps))}});
    bbq_eps->reset({10, 2, 3});
    EXPECT_EQ(bbq_eps->decide(x.view(), pred, 1, rng), factor < 1) << factor;
  }
  // theta_t grows like sqrt(log t): a gap just above the round-1 threshold is queried later on.
  auto dgs = make<QueryRule>("dgs", {{"eta_mode", "theory"}, {"m0", "1"}});
  dgs->reset({10, 2, 3});
  pred.scores = {1.01 * eta_dgs, 0.0, 0.0};
  EXPECT_TRUE(dgs->decide(x.view(), pred, 1000, rng));
}

// Drives cs_selectron by hand: on the rule's rounds x = e1 is labelled 2 (wrong), on the rounds the safety
// switch adds it is labelled 1 (the truth). The active model learns the wrong class, the passive model the right
// one; with a small margin constant the learner switches and then predicts class 1.
struct SafetyRun {
  std::int64_t switch_round = 0, audits = 0, queried = 0;
  std::int32_t final_prediction = -1;
  glimpse::MetricResults report;
};
SafetyRun run_safety(const std::string& safety_c, const std::string& link) {
  const ProblemShape shape{200, 2, 2};
  auto learner = make<Learner>("cs_selectron", {{"safety", "true"}, {"safety_c", safety_c}, {"link", link}}, &shape);
  learner->reset(shape, 1);
  Prediction pred;
  pred.scores.resize(2);
  const DenseRow e1({1.0f, 0.0f});
  SafetyRun out;
  for (int t = 1; t <= 200; ++t) {
    learner->predict(e1.view(), pred);
    const bool rule_queries = t % 2 == 1;
    const bool audit = learner->wants_label(rule_queries);
    EXPECT_EQ(audit, t > 1 && (t - 1) % 2 == 1) << "round " << t;  // exactly the rounds after a rule query
    if (audit || rule_queries) ++out.queried;
    const int y = rule_queries ? 1 : 0;
    learner->learn(e1.view(), pred, audit || rule_queries ? Feedback{LabelFeedback{y}} : Feedback{NoFeedback{}});
  }
  learner->predict(e1.view(), pred);
  out.final_prediction = pred.predicted;
  learner->report(out.report);
  for (const auto& s : out.report.scalars) {
    if (s.suffix == "safety_switch_round") out.switch_round = static_cast<std::int64_t>(s.value);
    if (s.suffix == "safety_audits") out.audits = static_cast<std::int64_t>(s.value);
  }
  return out;
}

TEST(CsSelectron, SafetySwitchTrainsAPassiveModelOnTheExtraRoundsAndSwitchesWhenTheActiveOneIsWorse) {
  for (const std::string link : {"logistic", "linear"}) {
    SCOPED_TRACE(link);
    // Odd rounds are the rule's, each following even round an audit: 100 audits, all 200 rounds labelled.
    const SafetyRun small_margin = run_safety("1e-6", link);
    EXPECT_EQ(small_margin.audits, 100);
    EXPECT_EQ(small_margin.queried, 200);
    EXPECT_GT(small_margin.switch_round, 0);
    EXPECT_LE(small_margin.switch_round, 10);  // the first audits already show the active model's loss
    EXPECT_EQ(small_margin.final_prediction, 0);
    // The margin shrinks like 1/N while the active model's excess loss stays: the paper's c = 1 switches too,
    // later (the margin is ~150/N here: d = 2, gamma_l = 1/(4e)).
    const SafetyRun paper_margin = run_safety("1", link);
    EXPECT_GT(paper_margin.switch_round, small_margin.switch_round);
    EXPECT_EQ(paper_margin.final_prediction, 0);
    // A margin no loss gap over 100 audits can reach: the learner keeps its active model, which predicts the
    // class its rule's rounds taught it, and reports the losses that did not suffice.
    const SafetyRun huge_margin = run_safety("1e6", link);
    EXPECT_EQ(huge_margin.switch_round, 0);
    EXPECT_EQ(huge_margin.final_prediction, 1);
    ASSERT_EQ(huge_margin.report.scalars.size(), 4u);
    EXPECT_GT(huge_margin.report.scalars[1].value, huge_margin.report.scalars[2].value);  // loss active > passive
  }
  // Without the option the learner never asks for a label.
  const ProblemShape shape{10, 2, 2};
  auto plain = make<Learner>("cs_selectron", {}, &shape);
  plain->reset(shape, 1);
  Prediction pred;
  pred.scores.resize(2);
  const DenseRow e1({1.0f, 0.0f});
  for (int t = 0; t < 4; ++t) {
    plain->predict(e1.view(), pred);
    EXPECT_FALSE(plain->wants_label(true));
  }
  glimpse::MetricResults nothing;
  plain->report(nothing);
  EXPECT_TRUE(nothing.scalars.empty());
}

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

}  // namespace
}  // namespace glimpse::test
