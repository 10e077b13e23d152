// minmax_scale (and l2_normalize): hand-computed rows, and the formula exactly on wide rows.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Transforms, L2NormalizeAndMinmaxScale) {
  Dataset d = Dataset::dense(3, 2, {3, 4, 0, 0, 1, -1}, {0, 1, 0}, 2);
  make<Transform>("minmax_scale")->apply(d, {});
  // Feature 0 spans [0, 3], feature 1 spans [-1, 4].
  EXPECT_EQ(std::vector<float>(d.row(0).values, d.row(0).values + 2), (std::vector<float>{1, 1}));
  EXPECT_NEAR(d.row(1).values[0], -1.0, 1e-6);
  EXPECT_NEAR(d.row(1).values[1], -1.0 + 2.0 / 5, 1e-6);
  EXPECT_NEAR(d.row(2).values[0], -1.0 + 2.0 / 3, 1e-6);
  EXPECT_NEAR(d.row(2).values[1], -1.0, 1e-6);
  make<Transform>("l2_normalize")->apply(d, {});
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_NEAR(d.row(i).squared_norm(), 1.0, 1e-6);
  Dataset zero = Dataset::dense(1, 2, {0, 0}, {0}, 2);
  make<Transform>("l2_normalize")->apply(zero, {});
  EXPECT_EQ(zero.row(0).values[0], 0.0f);
  Dataset constant = Dataset::dense(2, 1, {5, 5}, {0, 1}, 2);
  make<Transform>("minmax_scale")->apply(constant, {});
  EXPECT_EQ(constant.row(1).values[0], 0.0f);
}

// Wide rows (the transform's loops run in vector blocks and a remainder): every column scaled by the formula of
// x_j <- lower + (upper - lower)(x_j - min_j)/(max_j - min_j) in double, then rounded to float; the constant column 5
// becomes 0.
TEST(Transforms, MinmaxScaleOnWideRowsMatchesTheFormulaExactly) {
  const std::int32_t n = 7, d = 37;
  std::vector<float> values(static_cast<std::size_t>(n * d));
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = 0; j < d; ++j)
      values[static_cast<std::size_t>(i * d + j)] =
          j == 5 ? 2.5f : static_cast<float>((i * 31 + j * 17) % 11) - 3.3f * static_cast<float>(j);
  Dataset data = Dataset::dense(n, d, values, std::vector<std::int32_t>(n, 0), 2);
  make<Transform>("minmax_scale", {{"lower", "-1"}, {"upper", "2"}})->apply(data, {});
  for (std::int32_t j = 0; j < d; ++j) {
    double lo = values[static_cast<std::size_t>(j)], hi = lo;
    for (std::int32_t i = 0; i < n; ++i) {
      lo = std::min(lo, static_cast<double>(values[static_cast<std::size_t>(i * d + j)]));
      hi = std::max(hi, static_cast<double>(values[static_cast<std::size_t>(i * d + j)]));
    }
    for (std::int32_t i = 0; i < n; ++i) {
      const double v = values[static_cast<std::size_t>(i * d + j)];
      const float expected = hi > lo ? static_cast<float>(-1.0 + 3.0 * (v - lo) / (hi - lo)) : 0.0f;
      ASSERT_EQ(data.row(i).values[j], expected) << "row " << i << ", column " << j;
    }
  }
}

}  // namespace
}  // namespace glimpse::testing
