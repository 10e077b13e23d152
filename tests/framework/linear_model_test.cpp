// LinearModel's two weight layouts hold the same model: class-major (dense data) and feature-major (sparse data)
// give the same scores and weights after the same operations, and every online learner makes the same
// predictions on sparse rows (feature-major for LinearModel's) as on their dense twins (class-major).
#include <glimpse/linear_model.hpp>

#include "support.hpp"

namespace glimpse::test {
namespace {

SparseRow random_sparse_row(Rng& rng, std::int32_t d) {
  SparseRow row{{}, {}, d};
  for (std::int32_t j = 0; j < d; ++j)
    if (rng.below(3) == 0) row.indices.push_back(j), row.values.push_back(static_cast<Feature>(rng.normal()));
  return row;
}

DenseRow dense_twin(const SparseRow& row) {
  std::vector<Feature> full(static_cast<std::size_t>(row.dim), 0.0f);
  for (std::size_t e = 0; e < row.indices.size(); ++e) full[static_cast<std::size_t>(row.indices[e])] = row.values[e];
  return DenseRow(full);
}

// k = 5 fits one cache line of weights per feature; 20 and 70 need several, summed in passes of up to four lines.
template <class T>
void expect_layouts_agree(std::int32_t k, double tolerance) {
  SCOPED_TRACE("K = " + std::to_string(k));
  const std::int32_t d = 17;
  LinearModel<T> by_class, by_feature;
  by_class.reset(k, d, WeightLayout::class_major);
  by_feature.reset({100, d, k, true});
  ASSERT_EQ(by_feature.layout(), WeightLayout::feature_major);
  Rng rng(11);
  std::vector<double> coefficients(static_cast<std::size_t>(k));
  for (int t = 0; t < 300; ++t) {
    const SparseRow row = random_sparse_row(rng, d);
    const DenseRow dense = dense_twin(row);
    // Sparse rows through both layouts, and dense rows through the feature-major one (a model may see either).
    const Instance x = t % 4 == 3 ? dense.view() : row.view();
    const auto& a = by_class.compute_scores(x);
    const auto& b = by_feature.compute_scores(x);
    for (std::int32_t c = 0; c < k; ++c) {
      ASSERT_NEAR(static_cast<double>(a[c]), static_cast<double>(b[c]), tolerance) << "round " << t << " class " << c;
      ASSERT_NEAR(static_cast<double>(by_class.row_dot(c, x)), static_cast<double>(by_feature.row_dot(c, x)),
                  tolerance);
    }
    const auto single = static_cast<std::int32_t>(rng.below(k));
    const auto step = static_cast<T>(rng.normal());
    by_class.add_to_row(single, step, x);
    by_feature.add_to_row(single, step, x);
    for (auto& c : coefficients) c = rng.below(2) ? rng.normal() : 0.0;
    by_class.add_to_rows(coefficients, x);
    by_feature.add_to_rows(coefficients, x);
    if (t % 50 == 49) {  // the flat view scales every weight in either layout
      by_class.all_weights() *= T(0.5);
      by_feature.all_weights() *= T(0.5);
    }
  }
  double largest = 0.0;
  for (std::int32_t c = 0; c < k; ++c)
    for (std::int32_t j = 0; j < d; ++j) {
      ASSERT_NEAR(static_cast<double>(by_class.weight(c, j)), static_cast<double>(by_feature.weight(c, j)), tolerance);
      ASSERT_EQ(by_class.weight(c, j), by_class.weights()(c, j));
      largest = std::max(largest, std::abs(static_cast<double>(by_class.weight(c, j))));
    }
  EXPECT_GT(largest, 0.1);  // the updates did move the weights
  EXPECT_NEAR(static_cast<double>(by_class.all_weights().squaredNorm()),
              static_cast<double>(by_feature.all_weights().squaredNorm()), tolerance * 100);
}

TEST(LinearModel, FeatureMajorAndClassMajorLayoutsHoldTheSameModel) {
  for (const std::int32_t k : {5, 20, 70}) {
    expect_layouts_agree<double>(k, 1e-9);
    expect_layouts_agree<float>(k, 2e-3);
  }
}

// squared_norm sums in sixteen lanes plus a tail; on small integers every order is exact, so any lost or
// doubled element shows: 1^2 + ... + n^2 = n(n+1)(2n+1)/6 for every length, signs alternating.
TEST(Instance, SquaredNormCountsEveryStoredValueOnce) {
  for (std::int32_t n = 0; n <= 50; ++n) {
    std::vector<Feature> values;
    for (std::int32_t j = 1; j <= n; ++j) values.push_back(static_cast<Feature>(j % 2 ? j : -j));
    EXPECT_EQ(DenseRow(values).view().squared_norm(), n * (n + 1) * (2 * n + 1) / 6.0) << "n = " << n;
  }
}

// The feedback each learner takes: the true label, whether its proposal was right, a two-label candidate set
// holding the truth, or a label that is not the truth.
Feedback feedback_for(const PluginSpec& spec, std::int32_t y, const Prediction& pred, std::int32_t k,
                      std::vector<std::int32_t>& set) {
  if (spec.accepts.contains(FeedbackKind::label)) return LabelFeedback{y};
  if (spec.accepts.contains(FeedbackKind::correctness)) return CorrectnessFeedback{pred.proposed == y};
  if (spec.accepts.contains(FeedbackKind::candidate_set)) {
    set = {y, (y + 1) % k};
    return CandidateSetFeedback{set};
  }
  return ComplementaryFeedback{(y + 1 + pred.predicted % (k - 1)) % k};
}

// Every online learner the registry holds (a new one is covered by being loaded), with `precision` when it has one.
std::vector<std::pair<std::string, std::map<std::string, std::string>>> every_online_learner(
    const std::string& precision) {
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> learners;
  for (const auto* plugin : online_learners()) {
    std::map<std::string, std::string> params;
    for (const auto& param : plugin->spec->params) {
      if (param.name == "precision") params["precision"] = precision;
      // A wrapped learner (explorer's base) gets the precision too, when it has one.
      if (param.type == ParamType::learner)
        for (const auto& inner : registry().find(param.default_value)->spec->params)
          if (inner.name == "precision") params[param.name + ".precision"] = precision;
      // The explorer's base learns from right proposals only: explore every round, so that it learns here.
      if (param.name == "epsilon" && plugin->spec->name == "explorer") params.emplace("epsilon", "1");
    }
    learners.emplace_back(plugin->spec->name, params);
  }
  return learners;
}

TEST(LinearModel, LearnersPredictAlikeOnSparseRowsAndTheirDenseTwins) {
  const std::int32_t k = 4, d = 12;
  for (const auto& [name, params] : every_online_learner("double")) {
    SCOPED_TRACE(name);
    const PluginSpec& spec = *registry().find(name)->spec;
    const ProblemShape shape{300, d, k, false};
    auto on_dense = make<Learner>(name, params, &shape);
    auto on_sparse = make<Learner>(name, params, &shape);
    on_dense->reset({300, d, k, false}, 3);
    on_sparse->reset({300, d, k, true}, 3);
    Prediction a, b;
    a.scores.resize(k);
    b.scores.resize(k);
    std::vector<std::int32_t> set_a, set_b;
    Rng rng(5);
    int updates_seen = 0;
    for (int t = 0; t < 300; ++t) {
      const SparseRow row = random_sparse_row(rng, d);
      const DenseRow dense = dense_twin(row);
      on_dense->predict(dense.view(), a);
      on_sparse->predict(row.view(), b);
      ASSERT_EQ(a.predicted, b.predicted) << "round " << t;
      ASSERT_EQ(a.proposed, b.proposed) << "round " << t;
      for (std::int32_t c = 0; c < k; ++c) ASSERT_NEAR(a.scores[c], b.scores[c], 1e-9) << "round " << t;
      if (a.scores[0] != 0.0) ++updates_seen;
      const auto y = static_cast<std::int32_t>(rng.below(k));
      on_dense->learn(dense.view(), a, feedback_for(spec, y, a, k, set_a));
      on_sparse->learn(row.view(), b, feedback_for(spec, y, b, k, set_b));
    }
    EXPECT_GT(updates_seen, 100);  // the models did learn something to compare
  }
}

// Learner::prefetch only moves loads earlier: with the true next row as the hint, a wrong row, or none, every
// linear learner's scores stay bit for bit those of a copy never given a hint.
TEST(LinearModel, PrefetchHintsChangeNoResult) {
  const std::int32_t k = 20, d = 40;  // two cache lines of float weights per feature
  Rng rng(8);
  std::vector<SparseRow> rows;
  for (int t = 0; t < 301; ++t) rows.push_back(random_sparse_row(rng, d));
  for (const auto& [name, params] : every_online_learner("float")) {
    SCOPED_TRACE(name);
    const PluginSpec& spec = *registry().find(name)->spec;
    const ProblemShape shape{300, d, k, true};
    auto plain = make<Learner>(name, params, &shape);
    auto hinted = make<Learner>(name, params, &shape);
    plain->reset(shape, 3);
    hinted->reset(shape, 3);
    Prediction a, b;
    a.scores.resize(k);
    b.scores.resize(k);
    std::vector<std::int32_t> set_a, set_b;
    for (int t = 0; t < 300; ++t) {
      const Instance x = rows[static_cast<std::size_t>(t)].view();
      plain->predict(x, a);
      hinted->predict(x, b);
      for (std::int32_t c = 0; c < k; ++c) ASSERT_EQ(a.scores[c], b.scores[c]) << "round " << t << " class " << c;
      ASSERT_EQ(a.proposed, b.proposed) << "round " << t;
      // Mostly the true next row, every fifth round a wrong one (the hint is only a guess), every seventh none.
      if (t % 7 != 6) hinted->prefetch(rows[static_cast<std::size_t>(t % 5 == 4 ? (t * 13) % 300 : t + 1)].view());
      const auto y = static_cast<std::int32_t>(rng.below(k));
      plain->learn(x, a, feedback_for(spec, y, a, k, set_a));
      hinted->learn(x, b, feedback_for(spec, y, b, k, set_b));
    }
    EXPECT_TRUE(std::any_of(a.scores.begin(), a.scores.end(), [](double v) { return v != 0.0; }));  // it learned
  }
}

}  // namespace
}  // namespace glimpse::test
