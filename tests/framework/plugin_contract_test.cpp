// Contracts every loaded oracle, query rule, metric and transform keeps, checked over the registry (learners have
// theirs in learner_contract_test.cpp): a new plugin is covered by being built. Each is made with its declared
// defaults (plugins with a mandatory parameter, such as a cost matrix's file, are listed as skipped) and driven
// on a small random stream twice with the same seeds: the two runs must agree exactly, what it returns must be of
// its declared kind and in range, and its numbers finite.
#include <cmath>
#include <sstream>

#include "support.hpp"

namespace glimpse::test {
namespace {

constexpr std::int32_t K = 4, D = 3;
constexpr std::int64_t T = 300;

// Plugins of a kind that can be made from their declared defaults; the others are named on stdout.
std::vector<const LoadedPlugin*> makeable(PluginKind kind) {
  std::vector<const LoadedPlugin*> result;
  for (const auto* plugin : registry().plugins()) {
    if (plugin->spec->kind != kind) continue;
    const ProblemShape shape{T, D, K, false};
    try {
      params_for(*plugin->spec, {}, &shape);
      result.push_back(plugin);
    } catch (const Error& e) {
      std::cout << "skipped " << plugin->spec->name << " (no default for a mandatory parameter: " << e.what() << ")\n";
    }
  }
  return result;
}

// The stream both drives: rows, true labels, predictions and p(y|x), all from one seed.
struct Stream {
  std::vector<DenseRow> rows;
  std::vector<std::int32_t> labels;
  std::vector<Prediction> predictions;
  std::vector<double> probabilities;  // T x K
  explicit Stream(std::uint64_t seed) {
    Rng rng(seed);
    for (std::int64_t t = 0; t < T; ++t) {
      rows.emplace_back(std::vector<Feature>{static_cast<Feature>(rng.normal()), static_cast<Feature>(rng.normal()),
                                             static_cast<Feature>(rng.normal())});
      labels.push_back(static_cast<std::int32_t>(rng.below(K)));
      Prediction p{.scores = std::vector<double>(K)};
      for (auto& s : p.scores) s = rng.normal();
      p.predicted = argmax(p.scores);
      p.proposed = rng.uniform() < 0.2 ? static_cast<std::int32_t>(rng.below(K)) : p.predicted;
      predictions.push_back(p);
      double total = 0;
      for (std::int32_t k = 0; k < K; ++k) total += probabilities.emplace_back(rng.uniform() + 0.01);
      for (std::int32_t k = 0; k < K; ++k) probabilities[probabilities.size() - K + k] /= total;
    }
  }
  RoundTruth truth(std::int64_t t) const {
    return {t + 1, labels[static_cast<std::size_t>(t)],
            std::span<const double>(probabilities).subspan(static_cast<std::size_t>(t * K), K)};
  }
};

// A feedback as text, and whether it is well formed for K classes and the declared kind.
std::string describe(const Feedback& feedback, FeedbackKind produces, std::string& problem) {
  std::ostringstream text;
  const auto check_label = [&](std::int32_t label) {
    if (label < 0 || label >= K) problem = "label " + std::to_string(label) + " outside 0..K-1";
    text << label;
  };
  const FeedbackKind kind = kind_of(feedback);
  if (kind != FeedbackKind::none && kind != produces)
    problem = std::string("returned ") + std::string(feedback_kind_name(kind)) + ", declares " +
              std::string(feedback_kind_name(produces));
  text << static_cast<int>(kind) << ':';
  if (const auto* f = std::get_if<LabelFeedback>(&feedback)) check_label(f->label);
  if (const auto* f = std::get_if<NoisyLabelFeedback>(&feedback)) check_label(f->label);
  if (const auto* f = std::get_if<ComplementaryFeedback>(&feedback)) check_label(f->label);
  if (const auto* f = std::get_if<CorrectnessFeedback>(&feedback)) text << f->correct;
  if (const auto* f = std::get_if<CandidateSetFeedback>(&feedback)) {
    if (f->labels.empty()) problem = "an empty candidate set";
    for (const auto label : f->labels) check_label(label), text << ',';
  }
  return text.str();
}

TEST(PluginContract, OraclesAnswerInTheirKindAndRangeDeterministically) {
  const auto oracles = makeable(PluginKind::oracle);
  ASSERT_GE(oracles.size(), 5u);
  const Stream stream(11);
  const ProblemShape shape{T, D, K, false};
  for (const auto* plugin : oracles) {
    std::vector<std::string> answers[2];
    for (auto& answer : answers) {
      auto oracle = make<FeedbackOracle>(plugin->spec->name, {}, &shape);
      oracle->reset(shape);
      for (std::int64_t t = 0; t < T; ++t) {
        Rng rng(1000 + static_cast<std::uint64_t>(t));
        const auto i = static_cast<std::size_t>(t);
        std::string problem;
        answer.push_back(describe(oracle->respond(stream.rows[i].view(), stream.truth(t), stream.predictions[i], rng),
                                  plugin->spec->produces, problem));
        ASSERT_EQ(problem, "") << plugin->spec->name << ", round " << t + 1;
      }
    }
    EXPECT_EQ(answers[0], answers[1]) << plugin->spec->name << ": the same seeds gave other answers";
  }
}

TEST(PluginContract, QueryRulesDecideDeterministically) {
  const auto rules = makeable(PluginKind::query_rule);
  ASSERT_GE(rules.size(), 3u);
  const Stream stream(12);
  const ProblemShape shape{T, D, K, false};
  for (const auto* plugin : rules) {
    std::vector<bool> decisions[2];
    for (auto& decided : decisions) {
      auto rule = make<QueryRule>(plugin->spec->name, {}, &shape);
      rule->reset(shape);
      for (std::int64_t t = 0; t < T; ++t) {
        Rng rng(2000 + static_cast<std::uint64_t>(t));
        const auto i = static_cast<std::size_t>(t);
        decided.push_back(rule->decide(stream.rows[i].view(), stream.predictions[i], t + 1, rng));
      }
    }
    EXPECT_EQ(decisions[0], decisions[1]) << plugin->spec->name;
  }
}

TEST(PluginContract, MetricsReportNoInfinityAndAreDeterministic) {
  const auto metrics = makeable(PluginKind::metric);
  ASSERT_GE(metrics.size(), 8u);
  const Stream stream(13);
  const ProblemShape shape{T, D, K, false};
  for (const auto* plugin : metrics) {
    std::string reports[2];
    for (auto& report : reports) {
      auto metric = make<Metric>(plugin->spec->name, {}, &shape);
      metric->reset(shape, T);
      for (std::int64_t t = 0; t < T; ++t) {
        const auto i = static_cast<std::size_t>(t);
        const RoundTruth truth = stream.truth(t);
        const Feedback feedback = LabelFeedback{truth.label};
        metric->observe({t + 1, &truth, &stream.predictions[i], &feedback, t % 3 != 0});
      }
      MetricResults out;
      metric->report(out);
      std::ostringstream text;
      text.precision(17);
      for (const auto& s : out.scalars) {
        // NaN says "does not apply" (test_error without a held-out part); an infinity is a bug
        EXPECT_FALSE(std::isinf(s.value)) << plugin->spec->name << ": scalar '" << s.name << "' is " << s.value;
        text << s.name << '=' << s.value << ';';
      }
      for (const auto& c : out.curves) {
        EXPECT_EQ(c.rounds.size(), c.values.size()) << plugin->spec->name << ": curve '" << c.name << "'";
        for (const double v : c.values) text << v << ',';
      }
      for (const auto& m : out.matrices) {
        EXPECT_EQ(m.values.size(), static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols))
            << plugin->spec->name;
        for (const double v : m.values) text << v << ',';
      }
      report = text.str();
    }
    EXPECT_EQ(reports[0], reports[1]) << plugin->spec->name << ": the same stream gave another report";
  }
}

TEST(PluginContract, TransformsKeepAValidDatasetAndAreDeterministic) {
  const auto transforms = makeable(PluginKind::transform);
  ASSERT_GE(transforms.size(), 5u);
  constexpr std::int64_t n = 60;
  std::vector<Feature> values;
  std::vector<std::int32_t> labels;
  Rng rng(14);
  for (std::int64_t i = 0; i < n; ++i) {
    labels.push_back(static_cast<std::int32_t>(i % K));
    for (std::int32_t j = 0; j < D; ++j) values.push_back(static_cast<Feature>(rng.normal() + labels.back()));
  }
  std::vector<double> probabilities;  // p(y|x), as synthetic sources give it (resample_labels needs it)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int32_t k = 0; k < K; ++k) probabilities.push_back(k == labels[static_cast<std::size_t>(i)] ? 0.7 : 0.1);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = (i * 7) % n;
  const ProblemShape shape{n, D, K, false};
  for (const auto* plugin : transforms) {
    Dataset results[2] = {Dataset::dense(n, D, values, labels, K), Dataset::dense(n, D, values, labels, K)};
    for (auto& data : results) {
      data.class_probabilities = probabilities;
      auto transform = make<Transform>(plugin->spec->name, {}, &shape);
      const SeedContext context{3, 99, order};
      transform->apply(data, transform->per_seed() ? context : SeedContext{});
      EXPECT_NO_THROW(data.validate(plugin->spec->name)) << plugin->spec->name << " left an invalid dataset";
    }
    ASSERT_EQ(results[0].size(), results[1].size()) << plugin->spec->name;
    ASSERT_EQ(results[0].dim(), results[1].dim()) << plugin->spec->name;
    bool same = std::equal(results[0].labels().begin(), results[0].labels().end(), results[1].labels().begin());
    for (std::int64_t i = 0; same && i < results[0].size(); ++i) {
      const Instance a = results[0].row(i), b = results[1].row(i);
      same = a.nnz == b.nnz && std::equal(a.values, a.values + a.nnz, b.values);
    }
    EXPECT_TRUE(same) << plugin->spec->name << ": the same input and seed gave other rows";
  }
}

}  // namespace
}  // namespace glimpse::test
