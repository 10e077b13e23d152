// standardize: zero mean and unit variance per feature.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

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

}  // namespace
}  // namespace glimpse::testing
