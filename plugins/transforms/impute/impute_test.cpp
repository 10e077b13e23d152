// impute: each strategy's value derived by hand, fitted on the training rows only, and its refusals.
#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

// Feature 1: 1, 2, 2, 7, missing; feature 2 always present.
Dataset with_missing() { return Dataset::dense(5, 2, {1, 10, 2, 20, 2, 30, 7, 40, NAN, 50}, {0, 1, 0, 1, 0}, 2); }

float filled(const std::string& strategy, const SeedContext& context = {}) {
  Dataset d = with_missing();
  make<Transform>("impute", {{"strategy", strategy}})->apply(d, context);
  EXPECT_EQ(d.row(1).values[1], 20.0f);  // present values stay
  return d.row(4).values[0];
}

TEST(Impute, EachStrategyFillsWithTheFeaturesStatistic) {
  EXPECT_EQ(filled("mean"), 3.0f);           // (1 + 2 + 2 + 7) / 4
  EXPECT_EQ(filled("median"), 2.0f);         // middle of 1 2 2 7: (2 + 2) / 2
  EXPECT_EQ(filled("most_frequent"), 2.0f);  // 2 twice
}

TEST(Impute, LearnsOnlyFromTheTrainingRows) {
  const std::vector<std::int64_t> training{0, 3, 4};  // present values 1 and 7
  EXPECT_EQ(filled("mean", {.fit_rows = training}), 4.0f);
  EXPECT_EQ(filled("median", {.fit_rows = training}), 4.0f);
  EXPECT_EQ(filled("most_frequent", {.fit_rows = training}), 1.0f);  // a tie: the smaller value
}

TEST(Impute, SaysWhatItFilledAndRefusesWhatItCannot) {
  Dataset d = with_missing();
  make<Transform>("impute")->apply(d, {});
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "impute (median): filled 1 missing values in 1 of 5 rows");
  const std::vector<std::int64_t> only_missing{4};
  EXPECT_EQ(error_of([&] {
              Dataset e = with_missing();
              make<Transform>("impute")->apply(e, {.fit_rows = only_missing});
            }),
            "impute: feature 1 has no value in the training rows to impute from");
  EXPECT_NE(error_of([] {
              Dataset s = Dataset::sparse(2, {0, 1}, {0}, {NAN}, {0}, 2);
              make<Transform>("impute")->apply(s, {});
            }).find("expected dense data"),
            std::string::npos);
}

}  // namespace
}  // namespace glimpse::testing
