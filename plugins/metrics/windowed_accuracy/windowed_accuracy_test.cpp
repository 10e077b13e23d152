// windowed_accuracy on a hand-made sequence of rounds.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(WindowedAccuracy, MeansPerWindowIncludingTheLastPartialOne) {
  auto metric = make<Metric>("windowed_accuracy", {{"window", "2"}});
  const auto out = feed_right_or_wrong(*metric, {1, 1, 0, 1, 0}, {0, 0, 0, 0, 0});
  EXPECT_EQ(out.curves[0].rounds, (std::vector<std::int64_t>{2, 4, 5}));
  EXPECT_EQ(out.curves[0].values, (std::vector<double>{1.0, 0.5, 0.0}));
  EXPECT_DOUBLE_EQ(out.scalars[0].value, 0.5);  // the last full window
}

}  // namespace
}  // namespace glimpse::testing
