// label_drift's unit tests: the rows after the drift point of the stream order, and only they, swap the two
// classes in their labels and in p(y|x).
#include <gtest/gtest.h>

#include <glimpse/testing.hpp>
#include <numeric>

namespace {

using glimpse::testing::plugins;  // this build's plugins, loaded once

// Ten rows of K = 3, labels i % 3, p(y|x) = (0.1 i, 0.2, 0.8 - 0.1 i) so that each row's columns differ.
glimpse::Dataset ten_rows() {
  std::vector<std::int32_t> labels(10);
  std::vector<double> probabilities;
  for (int i = 0; i < 10; ++i) {
    labels[static_cast<std::size_t>(i)] = i % 3;
    probabilities.insert(probabilities.end(), {0.1 * i, 0.2, 0.8 - 0.1 * i});
  }
  auto data = glimpse::Dataset::dense(10, 1, std::vector<glimpse::Feature>(10, 1.0f), std::move(labels), 3);
  data.class_probabilities = std::move(probabilities);
  return data;
}

TEST(LabelDrift, RowsFromTheDriftPointOfTheStreamOnSwapTheTwoClasses) {
  const std::vector<std::int64_t> order{9, 8, 7, 6, 5, 4, 3, 2, 1, 0};  // the stream visits the rows backwards
  auto drift = plugins().make<glimpse::Transform>("label_drift", {{"at", "0.3"}, {"a", "0"}, {"b", "2"}});
  EXPECT_TRUE(drift->per_seed());
  const glimpse::Dataset before = ten_rows();
  glimpse::Dataset after = ten_rows();
  drift->apply(after, {.seed = 0, .key = 1, .order = order});
  // The first 3 rounds (rows 9, 8, 7) keep their concept; rows 6 down to 0 swap classes 0 and 2.
  for (std::int64_t row = 0; row < 10; ++row) {
    const bool drifted = row <= 6;
    const std::int32_t y = before.label(row);
    EXPECT_EQ(after.label(row), drifted ? (y == 0 ? 2 : y == 2 ? 0 : 1) : y) << "row " << row;
    const auto p = [&](const glimpse::Dataset& d, std::size_t c) {
      return d.class_probabilities[static_cast<std::size_t>(row) * 3 + c];
    };
    EXPECT_EQ(p(after, 0), p(before, drifted ? 2 : 0)) << "row " << row;
    EXPECT_EQ(p(after, 1), p(before, 1)) << "row " << row;
    EXPECT_EQ(p(after, 2), p(before, drifted ? 0 : 2)) << "row " << row;
  }
}

TEST(LabelDrift, WorksWithoutPOfYGivenXAndRefusesAPairThatIsNotTwoClasses) {
  std::vector<std::int64_t> order(4);
  std::iota(order.begin(), order.end(), 0);
  glimpse::Dataset data = glimpse::Dataset::dense(4, 1, std::vector<glimpse::Feature>(4, 0.0f), {0, 1, 0, 1}, 2);
  plugins().make<glimpse::Transform>("label_drift", {{"at", "0.5"}})->apply(data, {.order = order});
  EXPECT_EQ(std::vector<std::int32_t>(data.labels().begin(), data.labels().end()),
            (std::vector<std::int32_t>{0, 1, 1, 0}));
  for (const auto& [a, b] : {std::pair{"1", "1"}, {"0", "2"}}) {
    glimpse::Dataset two = glimpse::Dataset::dense(4, 1, std::vector<glimpse::Feature>(4, 0.0f), {0, 1, 0, 1}, 2);
    EXPECT_THROW(plugins().make<glimpse::Transform>("label_drift", {{"a", a}, {"b", b}})->apply(two, {.order = order}),
                 glimpse::Error);
  }
}

}  // namespace
