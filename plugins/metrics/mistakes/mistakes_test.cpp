// mistakes on a hand-made sequence of rounds.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(Mistakes, CountsPredictedAndProposedSeparately) {
  auto metric = make<Metric>("mistakes");
  const auto out = feed_right_or_wrong(*metric, {1, 0, 0}, {0, 0, 1});
  ASSERT_EQ(out.scalars.size(), 2u);
  EXPECT_EQ(out.scalars[0].name, "");
  EXPECT_DOUBLE_EQ(out.scalars[0].value, 2);
  EXPECT_EQ(out.scalars[1].name, "proposed");
  EXPECT_DOUBLE_EQ(out.scalars[1].value, 2);
}

}  // namespace
}  // namespace glimpse::testing
