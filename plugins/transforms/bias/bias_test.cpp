// bias: the constant appended as the last feature of dense and sparse rows.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

}  // namespace
}  // namespace glimpse::testing
