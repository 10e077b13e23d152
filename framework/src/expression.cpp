// A recursive-descent evaluator for protocol expressions.
#include "expression.hpp"

#include <cctype>
#include <cmath>
#include <string>

#include "glimpse/error.hpp"

namespace glimpse {
namespace {

class Parser {
 public:
  Parser(std::string_view text, const ProblemShape* shape) : text_(text), shape_(shape) {}

  ExpressionValue parse() {
    const double value = expression();
    skip_space();
    if (pos_ != text_.size()) fail("an operator or the end of the expression");
    return {value, uses_shape_};
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    throw Error("in expression '" + std::string(text_) + "' at position " + std::to_string(pos_ + 1) + ": expected " +
                expected);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  double expression() {
    double value = term();
    for (;;) {
      if (accept('+'))
        value += term();
      else if (accept('-'))
        value -= term();
      else
        return value;
    }
  }
  double term() {
    double value = unary();
    for (;;) {
      if (accept('*'))
        value *= unary();
      else if (accept('/'))
        value /= unary();
      else
        return value;
    }
  }
  double unary() {
    if (accept('-')) return -unary();
    if (accept('+')) return unary();
    const double base = primary();
    if (accept('^')) return std::pow(base, unary());
    return base;
  }
  double primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("a number, K, d, n, a function or '('");
    const char c = text_[pos_];
    if (accept('(')) {
      const double value = expression();
      if (!accept(')')) fail("')'");
      return value;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c))) return name();
    fail("a number, K, d, n, a function or '('");
  }
  double number() {
    const std::string rest(text_.substr(pos_));
    std::size_t used = 0;
    double value = 0.0;
    try {
      value = std::stod(rest, &used);
    } catch (const std::exception&) {
      fail("a number");
    }
    pos_ += used;
    return value;
  }
  double name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    const std::string_view id = text_.substr(start, pos_ - start);
    if (id == "K" || id == "d" || id == "n") {
      uses_shape_ = true;
      if (!shape_) return 1.0;
      if (id == "K") return shape_->K;
      if (id == "d") return shape_->d;
      return static_cast<double>(shape_->n);
    }
    const bool two_args = id == "min" || id == "max" || id == "pow";
    const bool one_arg = id == "sqrt" || id == "log" || id == "exp" || id == "abs";
    if (!one_arg && !two_args) {
      pos_ = start;
      fail("K, d, n or one of sqrt, log, exp, abs, min, max, pow (got '" + std::string(id) + "')");
    }
    if (!accept('(')) fail("'(' after " + std::string(id));
    const double a = expression();
    double b = 0.0;
    if (two_args) {
      if (!accept(',')) fail("',' in " + std::string(id) + "(a, b)");
      b = expression();
    }
    if (!accept(')')) fail("')'");
    if (id == "sqrt") return std::sqrt(a);
    if (id == "log") return std::log(a);
    if (id == "exp") return std::exp(a);
    if (id == "abs") return std::abs(a);
    if (id == "min") return std::min(a, b);
    if (id == "max") return std::max(a, b);
    return std::pow(a, b);
  }

  std::string_view text_;
  const ProblemShape* shape_;
  std::size_t pos_ = 0;
  bool uses_shape_ = false;
};

}  // namespace

ExpressionValue evaluate_expression(std::string_view text, const ProblemShape* shape) {
  return Parser(text, shape).parse();
}

}  // namespace glimpse
