// Transforms: the kernel map against a direct computation, per-seed noise, standardisation, and per-seed
// preparation of protocol datasets.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <tuple>

#include "dataset_cache.hpp"
#include "orchestrator.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

Dataset random_dense(std::int64_t n, std::int32_t d, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Feature> values(static_cast<std::size_t>(n * d));
  for (auto& v : values) v = static_cast<Feature>(rng.normal());
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) labels[i] = static_cast<std::int32_t>(i % 3);
  return Dataset::dense(n, d, std::move(values), std::move(labels), 3);
}

std::vector<float> dataset_values(const Dataset& d) {
  std::vector<float> v;
  for (std::int64_t i = 0; i < d.size(); ++i) v.insert(v.end(), d.row(i).values, d.row(i).values + d.dim());
  return v;
}

double direct_kernel(const Dataset& data, std::int64_t a, std::int64_t b, double g) {
  double squared = 0;
  for (std::int32_t j = 0; j < data.dim(); ++j)
    squared += std::pow(double(data.row(a).values[j]) - data.row(b).values[j], 2);
  return std::exp(-squared / g);
}

TEST(RbfSupport, FilePrefixMapEqualsTheDirectComputation) {
  const Dataset original = random_dense(20, 3, 1);
  Dataset raw = original, normalised = original;
  make<Transform>("rbf_support", {{"g", "0.7"}, {"size", "5"}, {"support", "file_prefix"}, {"normalize", "false"}})
      ->apply(raw, {});
  make<Transform>("rbf_support", {{"g", "0.7"}, {"size", "5"}, {"support", "file_prefix"}})->apply(normalised, {});
  ASSERT_EQ(raw.dim(), 5);
  ASSERT_EQ(raw.size(), 20);
  for (std::int64_t i = 0; i < 20; ++i) {
    double norm = 0;
    for (int j = 0; j < 5; ++j) {
      const double k = direct_kernel(original, i, j, 0.7);
      EXPECT_NEAR(raw.row(i).values[j], k, 1e-6) << i << "," << j;
      norm += k * k;
    }
    for (int j = 0; j < 5; ++j)
      EXPECT_NEAR(normalised.row(i).values[j], direct_kernel(original, i, j, 0.7) / std::sqrt(norm), 1e-6);
    EXPECT_NEAR(normalised.row(i).squared_norm(), 1.0, 1e-5);
    EXPECT_EQ(raw.label(i), original.label(i));
  }
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(raw.row(j).values[j], 1.0, 1e-6);  // k(x, x) = 1
}

TEST(RbfSupport, StreamPrefixFollowsTheTrialsOrderAndGrows) {
  const Dataset original = random_dense(10, 2, 2);
  const std::vector<std::int64_t> order{7, 2, 9, 0, 1, 3, 4, 5, 6, 8};
  Dataset grown = original;
  make<Transform>("rbf_support", {{"g", "2"}, {"size", "3"}, {"normalize", "false"}})->apply(grown, {0, 0, order});
  // Support points are rows 7, 2, 9 in that order; row 2 (stream position 1) sees only b_1, b_2.
  EXPECT_NEAR(grown.row(0).values[0], direct_kernel(original, 0, 7, 2), 1e-6);
  EXPECT_NEAR(grown.row(0).values[2], direct_kernel(original, 0, 9, 2), 1e-6);
  EXPECT_NEAR(grown.row(2).values[1], 1.0, 1e-6);
  EXPECT_EQ(grown.row(2).values[2], 0.0f);
  EXPECT_EQ(grown.row(7).values[1], 0.0f);
  EXPECT_NEAR(grown.row(7).values[0], 1.0, 1e-6);
  EXPECT_NE(grown.row(9).values[2], 0.0f);
  Dataset full = original;
  make<Transform>("rbf_support", {{"g", "2"}, {"size", "3"}, {"normalize", "false"}, {"grow", "false"}})
      ->apply(full, {0, 0, order});
  EXPECT_NEAR(full.row(7).values[2], direct_kernel(original, 7, 9, 2), 1e-6);
  EXPECT_TRUE(make<Transform>("rbf_support")->per_seed());
  EXPECT_FALSE(make<Transform>("rbf_support", {{"support", "file_prefix"}})->per_seed());
}

// phi_j = exp(-(d_j - shift) / g) over every support row, in long double from direct differences; normalised to unit
// norm when `normalize` (then shift = the smallest d_j, which leaves normalised phi unchanged).
std::vector<long double> reference_phi(const Dataset& data, std::int64_t row, std::int32_t support, double g,
                                       bool normalize) {
  std::vector<long double> squared(static_cast<std::size_t>(support));
  for (std::int32_t j = 0; j < support; ++j)
    for (std::int32_t f = 0; f < data.dim(); ++f)
      squared[j] += std::pow((long double)data.row(row).values[f] - data.row(j).values[f], 2);
  const long double shift = normalize ? *std::min_element(squared.begin(), squared.end()) : 0.0L;
  std::vector<long double> phi(squared.size());
  long double norm = 0;
  for (std::size_t j = 0; j < phi.size(); ++j) norm += std::pow(phi[j] = std::exp(-(squared[j] - shift) / g), 2);
  if (normalize)
    for (auto& v : phi) v /= std::sqrt(norm);
  return phi;
}

TEST(RbfSupport, EqualsAFloat64ReferenceToFloatPrecisionFromNarrowToWideWidths) {
  // Rows spread like min-max scaled features: squared distances from 0 to about 24, so at g = 1e-3 nearly every
  // kernel value is far below float's smallest (exp(-103) ~ 1.4e-45).
  Dataset original = random_dense(40, 6, 3);
  for (auto& v : original.mutable_values()) v = std::tanh(v);
  for (const double g : {1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0})
    for (const bool normalize : {true, false}) {
      Dataset mapped = original;
      make<Transform>("rbf_support", {{"g", std::to_string(g)},
                                      {"size", "8"},
                                      {"support", "file_prefix"},
                                      {"normalize", normalize ? "true" : "false"}})
          ->apply(mapped, {});
      for (std::int64_t i = 0; i < original.size(); ++i) {
        const auto expected = reference_phi(original, i, 8, g, normalize);
        for (int j = 0; j < 8; ++j) {
          const auto want = static_cast<double>(expected[j]);
          // Float's rounding of the value, or its smallest subnormal step near zero.
          EXPECT_NEAR(mapped.row(i).values[j], want, 1.2e-7 * want + 1.5e-45)
              << "g " << g << " normalize " << normalize << " row " << i << " support " << j;
        }
      }
    }
}

TEST(RbfSupport, NormalisedMapIsUnchangedByAConstantAddedToEverySquaredDistance) {
  // An extra feature, 0 on the 5 support rows and s elsewhere, adds s^2 to every distance of a non-support row.
  const Dataset base = random_dense(30, 3, 4);
  for (const double s2 : {0.0, 1.0, 5.0, 50.0}) {
    std::vector<Feature> values;
    for (std::int64_t i = 0; i < base.size(); ++i) {
      values.insert(values.end(), base.row(i).values, base.row(i).values + 3);
      values.push_back(i < 5 ? 0.0f : static_cast<Feature>(std::sqrt(s2)));
    }
    Dataset shifted = Dataset::dense(30, 4, values, {base.labels().begin(), base.labels().end()}, 3), plain = base;
    for (Dataset* data : {&shifted, &plain})
      make<Transform>("rbf_support", {{"g", "0.01"}, {"size", "5"}, {"support", "file_prefix"}})->apply(*data, {});
    for (std::int64_t i = 5; i < 30; ++i) {
      EXPECT_NEAR(shifted.row(i).squared_norm(), 1.0, 1e-5) << "s^2 " << s2 << " row " << i;
      for (int j = 0; j < 5; ++j)
        EXPECT_NEAR(shifted.row(i).values[j], plain.row(i).values[j], 1e-6) << "s^2 " << s2 << " row " << i;
    }
    EXPECT_TRUE(shifted.notes.empty());
  }
}

// 1-D points halfway between support points 2.5 apart (nearest squared distance 1.5625, so every kernel value at
// g = 0.01 is exp(-156) or less, below float's range); class 1 on the left half of the line, 0 on the right.
// A full-label perceptron over the normalised map, 20 passes in file order: the share of halfway rows it gets
// right in the last pass.
double perceptron_share_right_between_support_points(double g) {
  constexpr int support = 30;
  std::vector<Feature> values;
  std::vector<std::int32_t> labels;
  for (int j = 0; j < support; ++j) values.push_back(2.5f * static_cast<float>(j)), labels.push_back(j < support / 2);
  for (int j = 0; j + 1 < support; ++j)
    values.push_back(2.5f * static_cast<float>(j) + 1.25f), labels.push_back(j < support / 2);
  Dataset data = Dataset::dense(static_cast<std::int64_t>(labels.size()), 1, values, labels, 2);
  make<Transform>("rbf_support", {{"g", std::to_string(g)}, {"size", std::to_string(support)}, {"support", "file_prefix"}})
      ->apply(data, {});
  auto learner = make<Learner>("perceptron");
  learner->reset(data.shape(), 0);
  Prediction pred;
  pred.scores.resize(2);
  int right = 0;
  for (int pass = 0; pass < 20; ++pass)
    for (std::int64_t i = 0; i < data.size(); ++i) {
      learner->predict(data.row(i), pred);
      if (pass == 19 && i >= support) right += pred.predicted == data.label(i);
      learner->learn(data.row(i), pred, LabelFeedback{data.label(i)});
    }
  return right / double(support - 1);
}

TEST(RbfSupport, RowsFarFromEverySupportRowStillLearnAtANarrowWidth) {
  // Before phi was computed in double and shifted, every halfway row's phi was 0 at g = 0.01: chance.
  EXPECT_GE(perceptron_share_right_between_support_points(0.01), 0.9);
  EXPECT_GE(perceptron_share_right_between_support_points(1.0), 0.9);
}

TEST(RbfSupport, ReportsRowsLeftAllZeroWithoutNormalisationOnce) {
  // Rows 0-2 are the support set; rows 3 and 4 lie far from all of them (squared distance >= 100 * 1 > 103 * 0.5).
  const std::vector<Feature> values{0, 0.5f, 1, 11, 12};
  Dataset raw = Dataset::dense(5, 1, values, {0, 1, 0, 1, 0}, 2), normalised = raw;
  make<Transform>("rbf_support", {{"g", "0.5"}, {"size", "3"}, {"support", "file_prefix"}, {"normalize", "false"}})
      ->apply(raw, {});
  ASSERT_EQ(raw.notes.size(), 1u);
  EXPECT_NE(raw.notes[0].find("2 of 5 rows have an all-zero kernel map"), std::string::npos) << raw.notes[0];
  EXPECT_EQ(raw.row(3).squared_norm(), 0.0);
  make<Transform>("rbf_support", {{"g", "0.5"}, {"size", "3"}, {"support", "file_prefix"}})->apply(normalised, {});
  EXPECT_TRUE(normalised.notes.empty());
  EXPECT_NEAR(normalised.row(4).values[2], 1.0, 1e-6);  // its nearest support point is 1, the third
}

// A difference from the CSPA authors' program, pinned: their kernel map stays in float64, glimpse stores it as
// float. Row 0 (x = 0) against the support row x = 1.2 at g = 0.01: exp(-1.44 / 0.01) = exp(-144) = 2.9e-63, kept by
// float64, below float's smallest subnormal (1.4e-45) and so stored as 0. Such values decide early ties between
// classes (a class penalised only through them scores -1e-63 there, not 0): on segment at g = 0.01 the authors'
// Banditron gains about 1 point from them (docs/reproducing.md, "Differential runs").
TEST(RbfSupport, KernelValuesBelowFloatRangeAreStoredAsZeroWhereFloat64KeepsThem) {
  Dataset data = Dataset::dense(2, 1, {0.0f, 1.2f}, {0, 1}, 2);
  make<Transform>("rbf_support", {{"g", "0.01"}, {"size", "2"}, {"support", "file_prefix"}})->apply(data, {});
  const double float64 = std::exp(-(1.2 * 1.2) / 0.01) / std::sqrt(1 + std::exp(-2 * (1.2 * 1.2) / 0.01));
  EXPECT_GT(float64, 1e-64);
  EXPECT_EQ(data.row(0).values[0], 1.0f);
  EXPECT_EQ(data.row(0).values[1], 0.0f);
  EXPECT_EQ(data.row(1).values[0], 0.0f);
}

TEST(GaussianNoise, DrawsPerSeedWithTheRequestedVariance) {
  const Dataset zeros =
      Dataset::dense(20000, 5, std::vector<Feature>(100000, 0.0f), std::vector<std::int32_t>(20000, 0), 2);
  auto noise = make<Transform>("gaussian_noise", {{"sigma", "0.5"}});
  Dataset a = zeros, b = zeros, c = zeros;
  noise->apply(a, {0, 11, {}});
  noise->apply(b, {0, 11, {}});
  noise->apply(c, {1, 12, {}});
  EXPECT_EQ(a.row(3).values[2], b.row(3).values[2]);
  EXPECT_NE(a.row(3).values[2], c.row(3).values[2]);
  double sum = 0, squares = 0;
  for (auto v : a.mutable_values()) sum += v, squares += double(v) * v;
  EXPECT_NEAR(sum / 100000, 0.0, 0.006);  // 3 standard errors
  EXPECT_NEAR(squares / 100000, 0.25, 0.0035);
}

// Two rows with known p(y|x): each seed's labels follow them (frequencies within 4 standard errors), seeds
// differ, and a dataset without p(y|x) is refused.
TEST(ResampleLabels, DrawsEachLabelFromPOfYGivenXPerSeed) {
  const std::int64_t n = 20000;
  std::vector<double> probabilities;
  for (std::int64_t i = 0; i < n; ++i)
    for (double p : i % 2 ? std::array{0.7, 0.2, 0.1} : std::array{0.0, 0.5, 0.5}) probabilities.push_back(p);
  Dataset base = Dataset::dense(n, 1, std::vector<Feature>(n, 1.0f), std::vector<std::int32_t>(n, 0), 3);
  base.class_probabilities = probabilities;
  auto resample = make<Transform>("resample_labels");
  EXPECT_TRUE(resample->per_seed());
  Dataset a = base, b = base, c = base;
  resample->apply(a, {0, 11, {}});
  resample->apply(b, {0, 11, {}});
  resample->apply(c, {1, 12, {}});
  EXPECT_TRUE(std::equal(a.labels().begin(), a.labels().end(), b.labels().begin()));
  EXPECT_FALSE(std::equal(a.labels().begin(), a.labels().end(), c.labels().begin()));
  std::array<std::array<double, 3>, 2> counts{};
  for (std::int64_t i = 0; i < n; ++i)
    counts[static_cast<std::size_t>(i % 2)][static_cast<std::size_t>(a.label(i))] += 1;
  EXPECT_EQ(counts[0][0], 0.0);  // probability 0 is never drawn
  const double half = n / 2.0;
  for (auto [row, label, p] : {std::tuple{0, 1, 0.5}, {1, 0, 0.7}, {1, 1, 0.2}, {1, 2, 0.1}})
    EXPECT_NEAR(counts[static_cast<std::size_t>(row)][static_cast<std::size_t>(label)] / half, p,
                4 * std::sqrt(p * (1 - p) / half));
  Dataset bare = Dataset::dense(2, 1, {1.0f, 2.0f}, {0, 1}, 2);
  EXPECT_EQ(error_of([&] {
              resample->apply(bare, {0, 1, {}});
            }),
            "resample_labels: the dataset carries no p(y|x); only synthetic sources (glm_mixture, gaussians) do");
}

// A per-seed transform handed an order for another dataset (a caller bug: the framework builds orders from the
// dataset) stops instead of reading past the rows.
TEST(PerSeedPreparation, TransformsThatFollowTheStreamRefuseAnOrderOfTheWrongLength) {
  std::vector<std::int64_t> order(10);
  std::iota(order.begin(), order.end(), 0);
  const ProblemShape shape{12, 3, 3};
  const std::string expected = "per-seed transform: the stream order has 10 rows, the dataset 12";
  for (const auto& transform : {make<Transform>("imbalance", {}, &shape), make<Transform>("rbf_support")}) {
    Dataset data = random_dense(12, 3, 3);
    try {
      transform->apply(data, {0, 1, order});
      ADD_FAILURE() << "no error";
    } catch (const std::logic_error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

TEST(Bias, AppendsTheConstantAsTheLastFeatureOfDenseAndSparseRows) {
  const Dataset original = random_dense(6, 3, 4);
  Dataset dense = original;
  dense.class_names = {"a", "b", "c"};
  make<Transform>("bias", {{"value", "0.5"}})->apply(dense, {});
  ASSERT_EQ(dense.dim(), 4);
  ASSERT_EQ(dense.size(), 6);
  EXPECT_TRUE(dense.is_dense());
  EXPECT_EQ(dense.class_names, (std::vector<std::string>{"a", "b", "c"}));
  for (std::int64_t i = 0; i < 6; ++i) {
    for (std::int32_t j = 0; j < 3; ++j) EXPECT_EQ(dense.row(i).values[j], original.row(i).values[j]);
    EXPECT_EQ(dense.row(i).values[3], 0.5f);
    EXPECT_EQ(dense.label(i), original.label(i));
  }
  // Sparse: rows {0: 2}, {}, {1: -1, 4: 3} in d = 5 get index 5 appended, the empty row included.
  Dataset sparse = Dataset::sparse(5, {0, 1, 1, 3}, {0, 1, 4}, {2, -1, 3}, {0, 1, 1}, 2);
  make<Transform>("bias", {})->apply(sparse, {});
  sparse.validate("biased");
  ASSERT_EQ(sparse.dim(), 6);
  EXPECT_EQ(std::vector<std::int64_t>(sparse.row_offsets().begin(), sparse.row_offsets().end()),
            (std::vector<std::int64_t>{0, 2, 3, 6}));
  EXPECT_EQ(std::vector<std::int32_t>(sparse.column_indices().begin(), sparse.column_indices().end()),
            (std::vector<std::int32_t>{0, 5, 5, 1, 4, 5}));
  const auto values = sparse.row(2).stored_values();
  EXPECT_EQ(std::vector<float>(values.begin(), values.end()), (std::vector<float>{-1, 3, 1}));
  EXPECT_EQ(sparse.label(2), 1);
}

TEST(Standardize, GivesZeroMeanAndUnitVariancePerFeature) {
  Dataset d = random_dense(500, 3, 3);
  for (std::int64_t i = 0; i < 500; ++i)
    d.mutable_values()[static_cast<std::size_t>(i * 3)] += 7.0f;  // shift feature 1
  make<Transform>("standardize")->apply(d, {});
  for (int j = 0; j < 3; ++j) {
    double sum = 0, squares = 0;
    for (std::int64_t i = 0; i < 500; ++i) sum += d.row(i).values[j], squares += std::pow(d.row(i).values[j], 2);
    EXPECT_NEAR(sum / 500, 0.0, 1e-5);
    EXPECT_NEAR(squares / 500, 1.0, 1e-4);
  }
}

TEST(PerSeedPreparation, EachSeedGetsItsOwnCopyAfterTheSharedPrefix) {
  const Protocol p = parse_protocol(R"({"datasets": [{"source": "gaussians", "params": {"n_per_class": 50},
      "transforms": [{"name": "minmax_scale"}, {"name": "rbf_support", "params": {"size": 30, "g": 0.5}}]}],
      "oracle": {"name": "full"}, "learners": [{"name": "spa"}], "metrics": [{"name": "mistakes"}], "seeds": [3, 8]})",
                                    "p.json", ".", registry());
  const auto prepared = prepare_datasets(p);
  ASSERT_EQ(prepared.size(), 1u);
  ASSERT_TRUE(prepared[0].per_seed());
  const auto a_copy = prepared[0].materialize(3), b_copy = prepared[0].materialize(8);
  const Dataset& a = *a_copy;
  const Dataset& b = *b_copy;
  EXPECT_EQ(dataset_values(*prepared[0].materialize(3)), dataset_values(a));  // same seed, same copy
  EXPECT_EQ(a.dim(), 30);
  EXPECT_NE(dataset_values(a), dataset_values(b));
  // The support set of seed 3 is the first 30 rows of seed 3's stream: the first of them maps to k = 1 at j = 0.
  std::vector<std::int64_t> order(200);
  fill_stream_order(order,
                    derive_key(derive_key(derive_key(mix64(3), hash_name("glimpse.dataset")), hash_name("gaussians")),
                               hash_name("order")),
                    0, StreamOrder::shuffle, {}, 0);
  const double self = a.row(order[0]).values[0];
  EXPECT_NEAR(self * self, 1.0 * 1.0 / 1.0, 1e-5);  // only b_1 visible at position 0: normalised phi = (1, 0, ...)
  const auto sweep = expand_runs(p, {{200, 30, 4}});
  EXPECT_EQ(sweep.size(), 2u);
}

TEST(PerSeedPreparation, ATransformsNoteIsPrintedOnceNamingTheDatasetAndSeed) {
  // Unnormalised at g = 0.001, rows away from every support row keep no kernel value above float's smallest.
  const Protocol p = parse_protocol(R"({"datasets": [{"source": "gaussians", "params": {"n_per_class": 50},
      "transforms": [{"name": "rbf_support", "params": {"size": 5, "g": 0.001, "normalize": false}}]}],
      "oracle": {"name": "full"}, "learners": [{"name": "spa"}], "metrics": [{"name": "mistakes"}], "seeds": [3]})",
                                    "p.json", ".", registry());
  const auto prepared = prepare_datasets(p);
  ::testing::internal::CaptureStderr();
  const auto copy = prepared[0].materialize(3);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("glimpse: note: p.json: datasets[0] (dataset 'gaussians'), seed 3: rbf_support: "),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find(" of 200 rows have an all-zero kernel map"), std::string::npos) << printed;
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 1);
  EXPECT_EQ(copy->notes.size(), 1u);  // printed once, and kept: every run of the seed records it in its trace
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

TEST(Split, PartsAreStratifiedDisjointCompleteAndKeyedBySeed) {
  // 3 classes of 100, 50 and 10 rows; row i holds the value i so parts can be compared.
  std::vector<std::int32_t> labels;
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < (k == 0 ? 100 : k == 1 ? 50 : 10); ++i) labels.push_back(k);
  std::vector<Feature> values(labels.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<Feature>(i);
  const Dataset data = Dataset::dense(static_cast<std::int64_t>(labels.size()), 1, values, labels, 3);
  const auto part = [&](const std::string& keep, std::uint64_t key) {
    Dataset d = data;
    make<Transform>("split", {{"keep", keep}})->apply(d, {0, key, {}});
    std::vector<float> rows;
    for (std::int64_t i = 0; i < d.size(); ++i) rows.push_back(d.row(i).values[0]);
    return std::pair(rows, class_counts(d));
  };
  const auto [train, train_counts] = part("train", 5);
  const auto [test, test_counts] = part("test", 5);
  EXPECT_EQ(test_counts, (std::vector<std::int64_t>{30, 15, 3}));  // 30% of each class
  EXPECT_EQ(train_counts, (std::vector<std::int64_t>{70, 35, 7}));
  std::vector<float> all = train;
  all.insert(all.end(), test.begin(), test.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, values);  // disjoint and complete
  const auto [labelled, labelled_counts] = part("labelled", 5);
  const auto [unlabelled, unlabelled_counts] = part("unlabelled", 5);
  EXPECT_EQ(labelled_counts, (std::vector<std::int64_t>{21, 11, 2}));  // round(0.3 * 70, 35, 7)
  EXPECT_EQ(labelled.size() + unlabelled.size(), train.size());
  EXPECT_EQ(part("test", 5).first, test);
  EXPECT_NE(part("test", 6).first, test);
}

}  // namespace
}  // namespace glimpse::test
