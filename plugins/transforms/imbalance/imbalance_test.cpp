// imbalance: the geometric and one-rare class profiles, per seed.
#include <glimpse/testing_gtest.hpp>
#include <numeric>
#include <span>

namespace glimpse::testing {
namespace {

TEST(ImbalanceTransform, GeometricAndOneRareProfilesPerSeed) {
  std::vector<std::int64_t> order(400);
  std::iota(order.begin(), order.end(), 0);
  const ProblemShape shape{400, 1, 4};  // rare_class defaults to K
  auto geometric = make<Transform>("imbalance", {{"ratio", "8"}}, &shape);
  EXPECT_TRUE(geometric->per_seed());
  Dataset a = balanced(100, 4), b = balanced(100, 4), c = balanced(100, 4);
  geometric->apply(a, {1, 101, order});
  geometric->apply(b, {1, 101, order});
  geometric->apply(c, {2, 202, order});
  // 8^(-k/3) = 1, 1/2, 1/4, 1/8 of 100 rows.
  EXPECT_EQ(class_counts(a), (std::vector<std::int64_t>{100, 50, 25, 13}));
  EXPECT_EQ(a.row(a.size() - 1).values[0], b.row(b.size() - 1).values[0]);  // same key, same rows
  std::vector<Feature> rows_a, rows_c;
  for (std::int64_t i = 0; i < a.size(); ++i)
    rows_a.push_back(a.row(i).values[0]), rows_c.push_back(c.row(i).values[0]);
  EXPECT_NE(rows_a, rows_c);  // another seed keeps other rows

  auto rare = make<Transform>("imbalance", {{"profile", "one_rare"}, {"ratio", "1000"}, {"rare_class", "2"}});
  Dataset d = balanced(100, 3);
  const std::span<const std::int64_t> order_d(order.data(), 300);  // the order covers exactly d's rows
  rare->apply(d, {1, 7, order_d});
  EXPECT_EQ(class_counts(d), (std::vector<std::int64_t>{100, 1, 100}));  // 0.1 rounds to 0: one row kept
  Dataset e = balanced(10, 3);
  EXPECT_EQ(error_of([&] {
              make<Transform>("imbalance", {{"profile", "one_rare"}, {"rare_class", "4"}})
                  ->apply(e, {1, 7, std::span<const std::int64_t>(order.data(), 30)});
            }),
            "rare_class 4 outside 1..K = 3");
}

}  // namespace
}  // namespace glimpse::testing
