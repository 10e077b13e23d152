// Helpers for a plugin's unit tests, in glimpse's tree and out of it (docs/writing-a-plugin.md, section 2c):
// load plugin libraries from folders, make a plugin with its parameters written as a protocol writes them, rows
// from plain vectors, and small probes of learners and metrics. Usable from any test framework;
// glimpse/testing_gtest.hpp adds the GoogleTest fixtures and assertions. Every plugin test in glimpse's tree uses
// these two headers only.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/glimpse.hpp"

namespace glimpse {
class PluginRegistry;
}

namespace glimpse::testing {

class Plugins {
 public:
  // Loads every plugin library (*.so) in each folder, as GLIMPSE_PLUGIN_PATH's folders are loaded.
  explicit Plugins(const std::vector<std::filesystem::path>& folders);
  ~Plugins();
  Plugins(const Plugins&) = delete;
  Plugins& operator=(const Plugins&) = delete;

  // The plugin's declaration. Error listing what was loaded when there is no plugin of that name.
  const PluginSpec& spec(const std::string& name) const;
  // Its parameters as a protocol gives them: the declared defaults, overridden by `given` (protocol text, e.g.
  // {{"epsilon", "0.1"}}; a learner parameter's learner's own as "NAME.PARAM"). Expressions of K, d, n need
  // `shape`. A refused value is an Error naming the plugin and the parameter.
  ParamValues params(const std::string& name, const std::map<std::string, std::string>& given = {},
                     const ProblemShape* shape = nullptr) const;
  // A new object of the plugin, made from params(name, given, shape).
  std::unique_ptr<PluginObject> make_object(const std::string& name,
                                            const std::map<std::string, std::string>& given = {},
                                            const ProblemShape* shape = nullptr) const;
  // The same, as the interface its kind implements (Learner, FeedbackOracle, Metric, ...).
  template <class Kind>
  std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& given = {},
                             const ProblemShape* shape = nullptr) const {
    return as_kind<Kind>(make_object(name, given, shape), name, "is not a plugin of the requested kind");
  }

  const PluginRegistry& registry() const noexcept { return *registry_; }

 private:
  std::unique_ptr<PluginRegistry> registry_;
};

// Parameters of a declaration that is not a plugin's (a shared header's list, such as cost_params()): the defaults,
// overridden by `given` (protocol text), resolved and range-checked as a protocol's are.
ParamValues resolve(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& given = {},
                    const ProblemShape* shape = nullptr);

// A dense row that owns its values; view() is the Instance a plugin is handed.
struct DenseRow {
  std::vector<Feature> values;
  explicit DenseRow(std::vector<Feature> v) : values(std::move(v)) {}
  Instance view() const {
    const auto n = static_cast<std::int32_t>(values.size());
    return {values.data(), nullptr, n, n, false};
  }
};

// A sparse row: the stored features' indices (0-based, increasing) and values, in `dim` dimensions.
struct SparseRow {
  std::vector<std::int32_t> indices;
  std::vector<Feature> values;
  std::int32_t dim;
  Instance view() const { return {values.data(), indices.data(), static_cast<std::int32_t>(values.size()), dim, true}; }
};

// The plugins of the build this test belongs to, loaded once: glimpse_add_plugin(... TESTS ...) defines PLUGIN_DIR
// as the folder it builds them in (in glimpse's tree: every plugin of the tree).
#ifdef PLUGIN_DIR
inline const Plugins& plugins() {
  static const Plugins loaded({PLUGIN_DIR});
  return loaded;
}
// A new object of one of them, as plugins().make: make<Learner>("perceptron", {{"margin", "1"}}).
template <class Kind>
std::unique_ptr<Kind> make(const std::string& name, const std::map<std::string, std::string>& given = {},
                           const ProblemShape* shape = nullptr) {
  return plugins().make<Kind>(name, given, shape);
}
#endif

// Seeds for property tests: GLIMPSE_SEED fixes the first, GLIMPSE_REPEAT sets how many (default `count`).
inline std::vector<std::uint64_t> property_seeds(int count) {
  std::uint64_t first = 1;
  if (const char* s = std::getenv("GLIMPSE_SEED")) first = std::strtoull(s, nullptr, 10);
  if (const char* r = std::getenv("GLIMPSE_REPEAT")) count = std::atoi(r);
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back(first + static_cast<std::uint64_t>(i));
  return seeds;
}

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

}  // namespace glimpse::testing
