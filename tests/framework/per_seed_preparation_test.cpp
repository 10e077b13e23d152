// Per-seed preparation of protocol datasets: each seed's own copy after the shared prefix, order checks, notes.
#include <algorithm>
#include <numeric>

#include "support.hpp"

namespace glimpse::test {
namespace {

std::vector<float> dataset_values(const Dataset& d) {
  std::vector<float> v;
  for (std::int64_t i = 0; i < d.size(); ++i) v.insert(v.end(), d.row(i).values, d.row(i).values + d.dim());
  return v;
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
