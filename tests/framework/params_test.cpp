// Parameter declarations: resolution, ranges, messages.
#include "param_resolution.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(Params, ResolvesTypedValuesAndChecksRanges) {
  const auto beta = ParamSpec::real("beta", "1/(2*(K-1))", "").above(0).at_most(1);
  const ProblemShape shape{10, 3, 5};
  EXPECT_EQ(std::get<double>(*resolve_default(beta, &shape)), 0.125);
  EXPECT_FALSE(resolve_default(beta, nullptr).has_value());  // needs K
  EXPECT_EQ(std::get<double>(*resolve_param(beta, "1", nullptr)), 1.0);
  EXPECT_EQ(error_of([&] { resolve_param(beta, "1.5", nullptr); }), "expected a number in (0, 1], got 1.5");
  EXPECT_EQ(error_of([&] { resolve_param(beta, "0", nullptr); }), "expected a number in (0, 1], got 0");
  EXPECT_EQ(error_of([&] { resolve_param(beta, "abc", nullptr); }).rfind("expected a number in (0, 1], got 'abc'", 0),
            0u);
  const ProblemShape two{10, 3, 2};
  EXPECT_EQ(error_of([&] { resolve_param(beta, "2/(K-1)", &two); }),
            "expected a number in (0, 1], got '2/(K-1)' = 2 with K=2, d=3, n=10");
  EXPECT_EQ(error_of([&] { resolve_param(beta, "1/(K-2)", &two); }).find("expected a number in (0, 1]"), 0u);  // inf
}

TEST(Params, IntegersBooleansAndChoices) {
  const auto window = ParamSpec::integer("window", "100", "").at_least(1);
  EXPECT_EQ(std::get<std::int64_t>(*resolve_param(window, "25", nullptr)), 25);
  EXPECT_EQ(error_of([&] { resolve_param(window, "2.5", nullptr); }),
            "expected an integer >= 1, got 2.5 (not an integer)");
  EXPECT_EQ(error_of([&] { resolve_param(window, "0", nullptr); }), "expected an integer >= 1, got 0");
  const auto flag = ParamSpec::boolean("flag", true, "");
  EXPECT_EQ(std::get<bool>(*resolve_param(flag, "false", nullptr)), false);
  EXPECT_EQ(error_of([&] { resolve_param(flag, "yes", nullptr); }), "expected true or false, got 'yes'");
  const auto mode = ParamSpec::choice("mode", "a", {"a", "b"}, "");
  EXPECT_EQ(error_of([&] { resolve_param(mode, "c", nullptr); }), "expected one of a, b, got 'c'");
}

TEST(Params, ValuesRenderAsStableJson) {
  ParamValues v;
  v.set("beta", 0.1);
  v.set("n", std::int64_t{3});
  v.set("name", std::string("a\"b"));
  v.set("on", true);
  EXPECT_EQ(v.to_json(), R"({"beta":0.1,"n":3,"name":"a\"b","on":true})");
  EXPECT_THROW(v.real("missing"), std::logic_error);
  EXPECT_THROW(v.boolean("beta"), std::logic_error);
}

}  // namespace
}  // namespace glimpse::test
