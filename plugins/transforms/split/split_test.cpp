// split: stratified, disjoint, complete parts keyed by the seed.
#include <algorithm>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
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
}  // namespace glimpse::testing
