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

// A plugin whose parameters are bound to its fields (ParamSpec::into): the host's create_plugin stores each
// resolved value, converted to the field's type, then calls configure().
class BoundProbe final : public PluginObject {
 public:
  enum class Mode { first, second, third };  // the choices' order
  static PluginSpec spec() {
    return {
        .name = "bound_probe",
        .params = {ParamSpec::real("rate", "0.5", "").into(&BoundProbe::rate_),
                   ParamSpec::real("narrow", "0.1", "").into(&BoundProbe::narrow_),
                   ParamSpec::integer("count", "3", "").into(&BoundProbe::count_),
                   ParamSpec::boolean("flag", false, "").into(&BoundProbe::flag_),
                   ParamSpec::choice("mode", "first", {"first", "second", "third"}, "").into(&BoundProbe::mode_),
                   ParamSpec::text("label", "", "").into(&BoundProbe::label_), ParamSpec::real("unbound", "1", "")}};
  }
  void configure() { configured_rate_ = rate_ * count_; }

  double rate_ = 0;
  float narrow_ = 0;
  std::int32_t count_ = 0;
  bool flag_ = false;
  Mode mode_ = Mode::first;
  std::string label_;
  double configured_rate_ = 0;
};

TEST(Params, BoundParametersAreStoredInTheirFieldsThenConfigureRuns) {
  ParamValues values;
  values.set("rate", 0.25);
  values.set("narrow", 0.1);
  values.set("count", std::int64_t{4});
  values.set("flag", true);
  values.set("mode", std::string("third"));
  values.set("label", std::string("x y"));
  values.set("unbound", 2.0);
  std::unique_ptr<PluginObject> object(detail::create_plugin<BoundProbe>(values));
  const auto& probe = dynamic_cast<const BoundProbe&>(*object);
  EXPECT_EQ(probe.rate_, 0.25);
  EXPECT_EQ(probe.narrow_, static_cast<float>(0.1));  // the double cast to the field's type, as a constructor did
  EXPECT_EQ(probe.count_, 4);
  EXPECT_TRUE(probe.flag_);
  EXPECT_EQ(probe.mode_, BoundProbe::Mode::third);
  EXPECT_EQ(probe.label_, "x y");
  EXPECT_EQ(probe.configured_rate_, 1.0);  // configure() saw the bound values
  values.set("mode", std::string("second"));
  std::unique_ptr<PluginObject> other(detail::create_plugin<BoundProbe>(values));
  EXPECT_EQ(dynamic_cast<const BoundProbe&>(*other).mode_, BoundProbe::Mode::second);
}

}  // namespace
}  // namespace glimpse::test
