// online_accuracy on a hand-made sequence of rounds.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(OnlineAccuracy, FinalRatioAndCumulativeCurveAtRounds1PlusMultiplesOfE) {
  auto metric = make<Metric>("online_accuracy", {{"record_every", "2"}});
  const auto out = feed_right_or_wrong(*metric, {1, 0, 1, 1, 0}, {0, 0, 0, 0, 0});
  ASSERT_EQ(out.scalars.size(), 1u);
  EXPECT_DOUBLE_EQ(out.scalars[0].value, 3.0 / 5);
  ASSERT_EQ(out.curves.size(), 1u);
  EXPECT_EQ(out.curves[0].rounds, (std::vector<std::int64_t>{1, 3, 5}));
  EXPECT_EQ(out.curves[0].values, (std::vector<double>{1.0, 2.0 / 3, 3.0 / 5}));
  auto of_predicted = make<Metric>("online_accuracy", {{"of", "predicted"}, {"record_every", "0"}});
  const auto p = feed_right_or_wrong(*of_predicted, {1, 1, 1, 1}, {1, 0, 0, 0});
  EXPECT_DOUBLE_EQ(p.scalars[0].value, 0.25);
  EXPECT_TRUE(p.curves.empty());
}

}  // namespace
}  // namespace glimpse::testing
