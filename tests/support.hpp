// Shared helpers for tests: the plugin registry of this build, plugin objects made from parameter text,
// instances from plain vectors, temporary folders, and seeds honouring GLIMPSE_SEED / GLIMPSE_REPEAT.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/glimpse.hpp"
#include "glimpse/testing.hpp"
#include "orchestrator.hpp"
#include "param_resolution.hpp"
#include "plugin_registry.hpp"
#include "trace_reading.hpp"

namespace glimpse::test {

// The plugins built with this tree (GLIMPSE_TEST_PLUGIN_DIR), loaded once, through the helpers plugin authors get
// (glimpse/testing.hpp).
inline const testing::Plugins& plugins() {
  static const testing::Plugins loaded({GLIMPSE_TEST_PLUGIN_DIR});
  return loaded;
}
inline const PluginRegistry& registry() { return plugins().registry(); }

// This build's plugins plus the fixture plugins of one folder under GLIMPSE_TEST_FIXTURE_DIR (e.g. "misbehaving"),
// loaded once per folder.
inline const PluginRegistry& registry_with_fixture(const std::string& folder) {
  static std::map<std::string, std::unique_ptr<PluginRegistry>> loaded;
  auto& registry = loaded[folder];
  if (!registry) {
    registry = std::make_unique<PluginRegistry>();
    registry->load_directory(GLIMPSE_TEST_PLUGIN_DIR);
    registry->load_directory(std::filesystem::path(GLIMPSE_TEST_FIXTURE_DIR) / folder);
  }
  return *registry;
}

// A plugin's parameters: declared defaults, overridden by `overrides` (protocol text); a `learner` parameter gets
// the learner it names ("NAME.PARAM" sets that learner's parameters), as a protocol's would.
inline ParamValues params_for(const PluginSpec& spec, const std::map<std::string, std::string>& overrides = {},
                              const ProblemShape* shape = nullptr) {
  return plugins().params(spec.name, overrides, shape);
}

template <class Kind>
std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& overrides = {},
                           const ProblemShape* shape = nullptr) {
  return plugins().make<Kind>(name, overrides, shape);
}

// The oracle a learner is tested with: the first of its declared feedback kinds in this order.
inline std::string oracle_for(const PluginSpec& spec) {
  for (const auto& [kind, oracle] :
       {std::pair{FeedbackKind::candidate_set, "candidate_set"},
        std::pair{FeedbackKind::complementary, "complementary"}, std::pair{FeedbackKind::correctness, "bandit"},
        std::pair{FeedbackKind::label, "full"}})
    if (spec.accepts.contains(kind)) return oracle;
  return "";
}

// Every online learner in the registry (one that learns from some oracle); plugin families make none of their own.
inline std::vector<const LoadedPlugin*> online_learners() {
  std::vector<const LoadedPlugin*> learners;
  for (const auto* plugin : registry().plugins())
    if (plugin->spec->kind == PluginKind::learner && !oracle_for(*plugin->spec).empty() &&
        !plugin->entry->describe_member)
      learners.push_back(plugin);
  return learners;
}

using testing::DenseRow;
using testing::SparseRow;

// Seeds for property tests: GLIMPSE_SEED fixes the first, GLIMPSE_REPEAT sets how many (default `count`).
// Runs a protocol into `output` (no SweepObserver, so no progress line); threads 0: all cores.
inline SweepResult sweep_quietly(const Protocol& protocol, const std::filesystem::path& output, int threads = 0) {
  SweepOptions options;
  options.output = output;
  options.threads = threads;
  return run_sweep(protocol, options);
}

inline std::vector<std::uint64_t> property_seeds(int count) {
  std::uint64_t first = 1;
  if (const char* s = std::getenv("GLIMPSE_SEED")) first = std::strtoull(s, nullptr, 10);
  if (const char* r = std::getenv("GLIMPSE_REPEAT")) count = std::atoi(r);
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back(first + static_cast<std::uint64_t>(i));
  return seeds;
}

// A fresh, empty folder under the system temp folder, removed when the object goes.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("glimpse-test-" + std::string(info ? info->test_suite_name() : "x") + "-" +
             std::string(info ? info->name() : "y") + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Message of the glimpse::Error that `f` throws ("" if none).
template <class F>
std::string error_of(F&& f);

// Fixture whose dataset cache ($GLIMPSE_DATA: installed datasets, prepared entries) is a fresh folder, dir/cache.
class InFreshDatasetCache : public ::testing::Test {
 protected:
  TempDir dir;
  void SetUp() override { ::setenv("GLIMPSE_DATA", (dir.path() / "cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("GLIMPSE_DATA"); }
};

// Fixture for reader tests: writes text to a file in a fresh folder and loads it with a data source.
class ReaderTest : public ::testing::Test {
 protected:
  ReaderTest(std::string source, std::string file_name)
      : source_(std::move(source)), file_name_(std::move(file_name)) {}
  Dataset load(const std::string& text, std::map<std::string, std::string> params = {}) {
    { std::ofstream(dir.path() / file_name_) << text; }
    params["path"] = file();
    return make<DataSource>(source_, params)->load();
  }
  std::string refusal(const std::string& text, std::map<std::string, std::string> params = {}) {
    return error_of([&] { load(text, params); });
  }
  std::string file() const { return (dir.path() / file_name_).string(); }
  TempDir dir;

 private:
  std::string source_, file_name_;
};

// Message of the glimpse::Error that `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Probing plugins in unit tests: rows, predictions and small streams, shared by several plugins' tests.

// A prediction with room for k scores.
inline Prediction prediction_for(int k) {
  Prediction pred;
  pred.scores.resize(static_cast<std::size_t>(k));
  return pred;
}

inline DenseRow random_row(Rng& rng, int d) {
  std::vector<Feature> v(static_cast<std::size_t>(d));
  for (auto& e : v) e = static_cast<Feature>(rng.normal());
  return DenseRow(v);
}

inline std::vector<double> scores_of(Learner& learner, const Instance& x, int k) {
  Prediction pred = prediction_for(k);
  learner.predict(x, pred);
  return pred.scores;
}

// Puts a learner in a random state: rounds with random correctness feedback.
inline void scramble(Learner& learner, Rng& rng, int k, int d, int rounds) {
  Prediction pred = prediction_for(k);
  for (int t = 0; t < rounds; ++t) {
    const DenseRow x = random_row(rng, d);
    learner.predict(x.view(), pred);
    learner.learn(x.view(), pred, CorrectnessFeedback{rng.below(3) == 0});
  }
}

// The K scores of each unit probe e_1 .. e_d (row j: e_j's scores, W's row j for a linear learner), made by
// `score(probe, pred)`: evaluate() for the learners that keep a separate evaluation model, predict() otherwise.
template <class Score>
std::vector<std::vector<double>> probe_scores(int k, int d, Score score) {
  std::vector<std::vector<double>> rows;
  Prediction pred = prediction_for(k);
  for (int j = 0; j < d; ++j) {
    std::vector<Feature> e(static_cast<std::size_t>(d), 0.0f);
    e[static_cast<std::size_t>(j)] = 1.0f;
    const DenseRow probe(e);
    score(probe.view(), pred);
    rows.push_back(pred.scores);
  }
  return rows;
}

// W's rows as seen by evaluate() on the unit probes e_1, e_2 (d = 2).
inline std::array<std::vector<double>, 2> columns_of(Learner& learner, int k) {
  auto rows = probe_scores(k, 2, [&](const Instance& x, Prediction& pred) { learner.evaluate(x, pred); });
  return {std::move(rows[0]), std::move(rows[1])};
}

// One bandit round with the proposal chosen by the test: predict, propose `proposed`, learn whether it was right.
inline void learn_proposal(Learner& learner, const Instance& x, Prediction& pred, std::int32_t proposed, bool right) {
  learner.predict(x, pred);
  pred.proposed = proposed;
  learner.learn(x, pred, CorrectnessFeedback{right});
}

// How often predict() proposes each label over `draws` calls (no learning in between).
inline std::vector<double> proposal_frequencies(Learner& learner, const Instance& x, int k, int draws) {
  std::vector<double> counts(static_cast<std::size_t>(k), 0.0);
  Prediction pred = prediction_for(k);
  for (int t = 0; t < draws; ++t) {
    learner.predict(x, pred);
    counts[static_cast<std::size_t>(pred.proposed)] += 1.0 / draws;
  }
  return counts;
}

// VW's normalised step does not depend on a feature's scale: the same stream with feature j multiplied by c_j
// (powers of two, so that every product is exact) gives the same scores to the last bit.
inline void expect_scale_free(const std::string& name, const std::map<std::string, std::string>& params, bool bandit) {
  auto plain = make<Learner>(name, params), scaled = make<Learner>(name, params);
  const int k = 4;
  plain->reset({10, 3, k}, 5);
  scaled->reset({10, 3, k}, 5);
  Rng rng(11);
  const std::array<double, 3> c{8, 0.125, 1};
  for (int t = 0; t < 300; ++t) {
    std::vector<Feature> row(3), row_scaled(3);
    for (int j = 0; j < 3; ++j) {
      row[j] = static_cast<Feature>(rng.uniform() * 2 - 1) * (t % 7 == j ? 0 : 1);  // zeros now and then
      row_scaled[j] = static_cast<Feature>(row[j] * c[static_cast<std::size_t>(j)]);
    }
    const DenseRow x(row), xs(row_scaled);
    Prediction p = prediction_for(k), ps = prediction_for(k);
    plain->predict(x.view(), p);
    scaled->predict(xs.view(), ps);
    ASSERT_EQ(p.scores, ps.scores) << "round " << t;
    ASSERT_EQ(p.proposed, ps.proposed) << "round " << t;
    const int label = (row[0] > 0) + 2 * (row[1] > 0);
    if (bandit) {
      plain->learn(x.view(), p, CorrectnessFeedback{p.proposed == label});
      scaled->learn(xs.view(), ps, CorrectnessFeedback{ps.proposed == label});
    } else {
      plain->learn(x.view(), p, LabelFeedback{label});
      scaled->learn(xs.view(), ps, LabelFeedback{label});
    }
  }
}

// Feeds a metric rounds whose proposed / predicted correctness follow the given patterns (true label 0).
inline MetricResults feed_right_or_wrong(Metric& metric, const std::vector<int>& proposed_right,
                                         const std::vector<int>& predicted_right) {
  metric.reset({0, 1, 3}, static_cast<std::int64_t>(proposed_right.size()));
  Prediction pred = prediction_for(3);
  const Feedback feedback = NoFeedback{};
  for (std::size_t t = 0; t < proposed_right.size(); ++t) {
    RoundTruth truth{static_cast<std::int64_t>(t + 1), 0, {}};
    pred.proposed = proposed_right[t] ? 0 : 1;
    pred.predicted = predicted_right[t] ? 0 : 2;
    metric.observe({truth.round, &truth, &pred, &feedback, true});
  }
  MetricResults out;
  metric.report(out);
  return out;
}

inline Dataset balanced(int per_class, int k) {
  std::vector<Feature> values;
  std::vector<std::int32_t> labels;
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < per_class; ++i) values.push_back(static_cast<Feature>(c * 1000 + i)), labels.push_back(c);
  const auto n = static_cast<std::int64_t>(labels.size());
  return Dataset::dense(n, 1, std::move(values), std::move(labels), k);
}

inline Dataset random_dense(std::int64_t n, std::int32_t d, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Feature> values(static_cast<std::size_t>(n * d));
  for (auto& v : values) v = static_cast<Feature>(rng.normal());
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) labels[i] = static_cast<std::int32_t>(i % 3);
  return Dataset::dense(n, d, std::move(values), std::move(labels), 3);
}

inline std::vector<std::int32_t> set_of(std::initializer_list<std::int32_t> labels) { return labels; }

// The candidate-label learners' tests (avg/max perceptron, avg/max pegasos, pegasos):

// W as a K x d matrix, read by predict() through the unit probes.
inline std::vector<std::vector<double>> weights_of(Learner& learner, int k, int d) {
  const auto rows = probe_scores(k, d, [&](const Instance& x, Prediction& pred) { learner.predict(x, pred); });
  std::vector<std::vector<double>> w(static_cast<std::size_t>(k), std::vector<double>(static_cast<std::size_t>(d)));
  for (std::size_t j = 0; j < rows.size(); ++j)
    for (std::size_t i = 0; i < w.size(); ++i) w[i][j] = rows[j][i];
  return w;
}

// Feeds the same random stream to several learners, with feedback built from the true label by `feedback`; returns
// each learner's W at the end.
template <class MakeFeedback>
std::vector<std::vector<std::vector<double>>> run_stream(std::vector<Learner*> learners, int k, int d, int rounds,
                                                         std::uint64_t seed, MakeFeedback&& feedback) {
  Rng rng(seed);
  Prediction pred = prediction_for(k);
  for (auto* l : learners) l->reset({rounds, d, k}, 0);
  for (int t = 0; t < rounds; ++t) {
    std::vector<Feature> v(d);
    for (auto& e : v) e = static_cast<Feature>(rng.normal());
    const DenseRow x(v);
    const auto y = static_cast<std::int32_t>(rng.below(k));
    for (auto* l : learners) {
      l->predict(x.view(), pred);
      l->learn(x.view(), pred, feedback(y));
    }
  }
  std::vector<std::vector<std::vector<double>>> result;
  for (auto* l : learners) result.push_back(weights_of(*l, k, d));
  return result;
}

// W after each of 300 rounds (K = 5, d = 3) of the candidate_set oracle (sizes 2 to 4) on a random stream.
inline std::vector<std::vector<std::vector<double>>> weights_per_candidate_round(const std::string& name) {
  const int k = 5, d = 3, rounds = 300;
  auto learner = make<Learner>(name, {{"precision", "double"}});
  learner->reset({500, d, k}, 0);
  auto oracle = make<FeedbackOracle>("candidate_set", {{"size", "2"}, {"max_size", "4"}});
  oracle->reset({500, d, k});
  Rng rng(9);
  Prediction pred = prediction_for(k);
  std::vector<std::vector<std::vector<double>>> weights;
  for (int t = 1; t <= rounds; ++t) {
    std::vector<Feature> v(d);
    for (auto& e : v) e = static_cast<Feature>(3 * rng.normal());
    const DenseRow x(v);
    const auto y = static_cast<std::int32_t>(rng.below(k));
    learner->predict(x.view(), pred);
    Rng round_rng(derive_key(1, static_cast<std::uint64_t>(t)));
    learner->learn(x.view(), pred, oracle->respond(x.view(), {t, y, {}}, pred, round_rng));
    weights.push_back(weights_of(*learner, k, d));
  }
  return weights;
}

// Pegasos in float at lambda = 1e-4: steps of 1e4 / t against a ball of radius 100, so the projection shrinks
// W = a V's scale by orders of magnitude a round; V in float overflowed (NaN scores from round ~40) before the fold
// was moved up. `oracle` with its parameters gives the feedback.
inline void expect_float_pegasos_finite(const std::string& name, const std::string& oracle_name,
                                        const std::map<std::string, std::string>& oracle_params) {
  const int k = 10, d = 20;
  auto learner = make<Learner>(name, {{"precision", "float"}, {"lambda", "0.0001"}});
  learner->reset({2000, d, k}, 0);
  auto oracle = make<FeedbackOracle>(oracle_name, oracle_params);
  oracle->reset({2000, d, k});
  Rng rng(4);
  Prediction pred = prediction_for(k);
  for (int t = 1; t <= 2000; ++t) {
    std::vector<Feature> v(d);
    double norm = 0;
    for (auto& e : v) e = static_cast<Feature>(rng.normal()), norm += double(e) * e;
    for (auto& e : v) e = static_cast<Feature>(e / std::sqrt(norm));
    const DenseRow x(v);
    learner->predict(x.view(), pred);
    for (const double s : pred.scores) ASSERT_TRUE(std::isfinite(s)) << "round " << t;
    Rng round_rng(derive_key(2, static_cast<std::uint64_t>(t)));
    const auto y = static_cast<std::int32_t>(rng.below(k));
    learner->learn(x.view(), pred, oracle->respond(x.view(), {t, y, {}}, pred, round_rng));
  }
}

// `name` on singleton candidate sets equals the margin Perceptron on the labels, round for round (the same stream).
inline void expect_singletons_give_the_margin_perceptron(const std::string& name) {
  const int k = 4, d = 3;
  auto learner = make<Learner>(name, {{"precision", "double"}});
  auto margin = make<Learner>("perceptron", {{"margin", "1"}, {"precision", "double"}});
  std::int32_t label = 0;
  const auto w = run_stream({learner.get()}, k, d, 200, 3, [&](std::int32_t y) {
    label = y;
    return Feedback{CandidateSetFeedback{{&label, 1}}};
  });
  const auto reference =
      run_stream({margin.get()}, k, d, 200, 3, [](std::int32_t y) { return Feedback{LabelFeedback{y}}; });
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) {
      EXPECT_NE(reference[0][i][j], 0.0);
      EXPECT_NEAR(w[0][i][j], reference[0][i][j], 1e-9);
    }
}

// `name` given exact labels equals pegasos on the same stream.
inline void expect_exact_labels_give_pegasos(const std::string& name) {
  const int k = 4, d = 3;
  auto learner = make<Learner>(name, {{"precision", "double"}});
  auto pegasos = make<Learner>("pegasos", {{"precision", "double"}});
  const auto w = run_stream({learner.get(), pegasos.get()}, k, d, 200, 4,
                            [](std::int32_t y) { return Feedback{LabelFeedback{y}}; });
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) {
      EXPECT_NE(w[1][i][j], 0.0);
      EXPECT_NEAR(w[0][i][j], w[1][i][j], 1e-9);
    }
}

// After every round of weights_per_candidate_round: each column of W sums to zero (the APH/MPH Perceptron
// updates), or ||W||_F <= 1/sqrt(lambda = 0.1) (Pegasos's projection).
inline void expect_columns_sum_to_zero_every_round(const std::string& name) {
  const auto per_round = weights_per_candidate_round(name);
  for (std::size_t t = 0; t < per_round.size(); ++t)
    for (std::size_t j = 0; j < per_round[t][0].size(); ++j) {
      double column_sum = 0;
      for (const auto& row : per_round[t]) column_sum += row[j];
      ASSERT_NEAR(column_sum, 0.0, 1e-9) << "round " << t + 1;
    }
}
inline void expect_in_the_pegasos_ball_every_round(const std::string& name) {
  const auto per_round = weights_per_candidate_round(name);
  for (std::size_t t = 0; t < per_round.size(); ++t) {
    double squared = 0;
    for (const auto& row : per_round[t])
      for (const double v : row) squared += v * v;
    ASSERT_LE(std::sqrt(squared), 1 / std::sqrt(0.1) + 1e-9) << "round " << t + 1;
  }
}

}  // namespace glimpse::test
