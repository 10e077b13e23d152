// Dataset validation: labels out of range and non-finite values are refused.
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(DatasetValidation, RefusesLabelsOutOfRangeAndNonFiniteValues) {
  EXPECT_EQ(error_of([] { Dataset::dense(2, 1, {1, 2}, {0, 2}, 2).validate("d"); }), "d: row 2: label 3 outside 1..2");
  EXPECT_EQ(error_of([] {
              Dataset::dense(2, 1, {1, NAN}, {0, 1}, 2).validate("d");
            }),
            "d: row 2, feature 1: value is missing (NaN); expected the impute transform to fill it before the runs");
  std::vector<float> wide(40, 0.5f);
  wide[37] = -INFINITY;  // past the first vector blocks of the dense fast check
  EXPECT_EQ(error_of([&] {
              Dataset::dense(2, 20, wide, {0, 1}, 2).validate("d");
            }),
            "d: row 2, feature 18: value is not finite (-inf)");
  EXPECT_EQ(error_of([] {
              Dataset::sparse(3, {0, 2}, {2, 1}, {1, 1}, {0}, 2).validate("d");
            }),
            "d: row 1: feature indices must be strictly increasing (3 then 2)");
}

}  // namespace
}  // namespace glimpse::test
