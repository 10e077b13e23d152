// Arithmetic expressions of K, d and n in protocol values, e.g. "1/(2*(K-1))".
#pragma once

#include <string_view>

#include "glimpse/params.hpp"

namespace glimpse {

struct ExpressionValue {
  double value = 0.0;
  bool uses_shape = false;  // refers to K, d or n
};

// Grammar: numbers, K d n, + - * / ^, parentheses, sqrt log exp abs min max pow.
// With shape == nullptr, K, d and n evaluate to 1 and only syntax is checked for them (uses_shape tells).
// Throws Error("... at position P: expected X") on malformed text.
ExpressionValue evaluate_expression(std::string_view text, const ProblemShape* shape);

}  // namespace glimpse
