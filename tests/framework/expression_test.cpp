// Protocol expressions of K, d and n.
#include "expression.hpp"

#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(Expression, EvaluatesArithmeticWithShape) {
  const ProblemShape shape{100, 7, 5};
  EXPECT_DOUBLE_EQ(evaluate_expression("1/(2*(K-1))", &shape).value, 0.125);
  EXPECT_DOUBLE_EQ(evaluate_expression("2^3^2", &shape).value, 512.0);  // right-associative
  EXPECT_DOUBLE_EQ(evaluate_expression("-2^2", &shape).value, -4.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("sqrt(d + 2) * min(n, 3) - max(1, K)", &shape).value, 3 * 3 - 5);
  EXPECT_DOUBLE_EQ(evaluate_expression(" 1e-3 ", &shape).value, 1e-3);
  EXPECT_TRUE(evaluate_expression("K", &shape).uses_shape);
  EXPECT_FALSE(evaluate_expression("0.5", &shape).uses_shape);
}

TEST(Expression, ChecksSyntaxWithoutShape) {
  const auto v = evaluate_expression("1/(2*(K-1))", nullptr);
  EXPECT_TRUE(v.uses_shape);
}

TEST(Expression, MalformedTextNamesThePosition) {
  EXPECT_EQ(error_of([] { evaluate_expression("1/(2*(K-1)", nullptr); }),
            "in expression '1/(2*(K-1)' at position 11: expected ')'");
  EXPECT_EQ(
      error_of([] { evaluate_expression("2*k", nullptr); }),
      "in expression '2*k' at position 3: expected K, d, n or one of sqrt, log, exp, abs, min, max, pow (got 'k')");
  EXPECT_EQ(error_of([] { evaluate_expression("1 2", nullptr); }),
            "in expression '1 2' at position 3: expected an operator or the end of the expression");
  EXPECT_NE(error_of([] { evaluate_expression("", nullptr); }), "");
}

}  // namespace
}  // namespace glimpse::test
