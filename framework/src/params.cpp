// Parameter declarations, resolved values and their validation.
#include "glimpse/params.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "expression.hpp"
#include "glimpse/error.hpp"
#include "glimpse/plugin.hpp"
#include "param_resolution.hpp"

namespace glimpse {

ParamSpec ParamSpec::real(std::string name, std::string default_value, std::string doc) {
  return {std::move(name), ParamType::real, std::move(default_value), false, {}, {}, {}, std::move(doc)};
}
ParamSpec ParamSpec::integer(std::string name, std::string default_value, std::string doc) {
  return {std::move(name), ParamType::integer, std::move(default_value), false, {}, {}, {}, std::move(doc)};
}
ParamSpec ParamSpec::boolean(std::string name, bool default_value, std::string doc) {
  return {std::move(name), ParamType::boolean, default_value ? "true" : "false", false, {}, {}, {}, std::move(doc)};
}
ParamSpec ParamSpec::choice(std::string name, std::string default_value, std::vector<std::string> choices,
                            std::string doc) {
  return {std::move(name),    ParamType::choice, std::move(default_value), false, {}, {},
          std::move(choices), std::move(doc)};
}
ParamSpec ParamSpec::text(std::string name, std::string default_value, std::string doc) {
  return {std::move(name), ParamType::text, std::move(default_value), false, {}, {}, {}, std::move(doc)};
}

ParamSpec ParamSpec::path(std::string name, std::string doc) {
  return {std::move(name), ParamType::path, "", false, {}, {}, {}, std::move(doc)};
}

ParamSpec ParamSpec::learner(std::string name, std::string default_value, std::string doc) {
  return {std::move(name), ParamType::learner, std::move(default_value), false, {}, {}, {}, std::move(doc)};
}

namespace {
std::string format_number(double v) {
  // The shortest text that reads back to the same double, in plain notation when one exists (10, not 1e+01).
  std::string shortest_exponent;
  for (int precision = 1; precision <= 17; ++precision) {
    char text[40];
    std::snprintf(text, sizeof text, "%.*g", precision, v);
    if (std::strtod(text, nullptr) != v) continue;
    if (!std::strchr(text, 'e')) return text;
    if (shortest_exponent.empty()) shortest_exponent = text;
  }
  if (!shortest_exponent.empty()) {
    // Plain notation of moderate numbers (e.g. 1e+05 -> 100000) beats the exponent form.
    if (std::abs(v) >= 1e-4 && std::abs(v) < 1e15) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17f", v);
      std::string plain = text;
      while (plain.back() == '0') plain.pop_back();
      if (plain.back() == '.') plain.pop_back();
      if (std::strtod(plain.c_str(), nullptr) == v) return plain;
    }
    return shortest_exponent;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}
}  // namespace

std::string ParamSpec::type_name() const {
  static constexpr const char* names[] = {"real", "integer", "boolean", "choice", "text", "path", "learner"};
  return names[static_cast<std::size_t>(type)];  // in ParamType's order
}

std::string ParamSpec::expectation() const {
  switch (type) {
    case ParamType::boolean:
      return "true or false";
    case ParamType::text:
      return "a string";
    case ParamType::path:
      return "a file path";
    case ParamType::learner:
      return "a learner plugin name (its parameters as NAME.PARAM)";
    case ParamType::choice: {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      return "one of " + list;
    }
    case ParamType::real:
    case ParamType::integer:
      break;
  }
  const std::string noun = type == ParamType::integer ? "an integer" : "a number";
  if (lower && upper)
    return noun + " in " + (lower->open ? "(" : "[") + format_number(lower->value) + ", " +
           format_number(upper->value) + (upper->open ? ")" : "]");
  if (lower) return noun + (lower->open ? " > " : " >= ") + format_number(lower->value);
  if (upper) return noun + (upper->open ? " < " : " <= ") + format_number(upper->value);
  return noun;
}

namespace {
// Replaces the value under `name`, or appends it: a plugin's few parameters keep their declaration order.
template <class Value>
void set_named(std::vector<std::pair<std::string, Value>>& entries, std::string name, Value value) {
  for (auto& [n, v] : entries)
    if (n == name) {
      v = std::move(value);
      return;
    }
  entries.emplace_back(std::move(name), std::move(value));
}
}  // namespace

void ParamValues::set(std::string name, ParamValue value) { set_named(entries_, std::move(name), std::move(value)); }

std::unique_ptr<PluginObject> ParamValues::create(std::string_view name) const {
  for (const auto& [n, factory] : factories_)
    if (n == name) return factory();
  throw std::logic_error("no learner was supplied for parameter '" + std::string(name) + "'");
}

void ParamValues::set_factory(std::string name, Factory factory) {
  set_named(factories_, std::move(name), std::move(factory));
}

bool ParamValues::contains(std::string_view name) const noexcept {
  for (const auto& entry : entries_)
    if (entry.first == name) return true;
  return false;
}

const ParamValue& ParamValues::find(std::string_view name) const {
  for (const auto& entry : entries_)
    if (entry.first == name) return entry.second;
  throw std::logic_error("plugin asked for undeclared parameter '" + std::string(name) + "'");
}

template <class T>
static const T& get_as(const ParamValue& value, std::string_view name) {
  if (const T* p = std::get_if<T>(&value)) return *p;
  throw std::logic_error("plugin asked for parameter '" + std::string(name) + "' with the wrong type");
}

double ParamValues::real(std::string_view name) const {
  const ParamValue& v = find(name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return get_as<double>(v, name);
}
std::int64_t ParamValues::integer(std::string_view name) const { return get_as<std::int64_t>(find(name), name); }
bool ParamValues::boolean(std::string_view name) const { return get_as<bool>(find(name), name); }
const std::string& ParamValues::text(std::string_view name) const { return get_as<std::string>(find(name), name); }
std::filesystem::path resolve_path(const std::filesystem::path& base_dir, const std::string& written) {
  const std::filesystem::path path = written;
  if (path.empty() || path.is_absolute()) return path;
  return base_dir / path;
}
std::filesystem::path ParamValues::path(std::string_view name) const { return resolve_path(base_dir_, text(name)); }

static std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string param_value_json(const ParamValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, double>)
          return format_number(v);
        else if constexpr (std::is_same_v<V, std::int64_t>)
          return std::to_string(v);
        else if constexpr (std::is_same_v<V, bool>)
          return v ? "true" : "false";
        else
          return json_string(v);
      },
      value);
}

std::string ParamValues::to_json() const {
  std::string out = "{";
  for (const auto& [name, value] : entries_) {
    if (out.size() > 1) out += ",";
    out += json_string(name) + ":" + param_value_json(value);
  }
  return out + "}";
}

bool is_number_text(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

static std::string quote_unless_number(const std::string& raw) {
  if (raw.empty()) return "an empty value";
  return is_number_text(raw) ? raw : "'" + raw + "'";
}

static bool within(const ParamSpec& spec, double v) {
  if (spec.lower && (spec.lower->open ? !(v > spec.lower->value) : !(v >= spec.lower->value))) return false;
  if (spec.upper && (spec.upper->open ? !(v < spec.upper->value) : !(v <= spec.upper->value))) return false;
  return true;
}

std::optional<ParamValue> resolve_param(const ParamSpec& spec, const std::string& raw, const ProblemShape* shape) {
  const auto refuse = [&](const std::string& extra = {}) -> Error {
    return Error("expected " + spec.expectation() + ", got " + quote_unless_number(raw) + extra);
  };
  switch (spec.type) {
    case ParamType::text:
    case ParamType::path:
    case ParamType::learner:
      return ParamValue{raw};
    case ParamType::boolean:
      if (raw == "true") return ParamValue{true};
      if (raw == "false") return ParamValue{false};
      throw refuse();
    case ParamType::choice:
      for (const auto& c : spec.choices)
        if (c == raw) return ParamValue{raw};
      throw refuse();
    case ParamType::real:
    case ParamType::integer:
      break;
  }
  ExpressionValue e;
  try {
    e = evaluate_expression(raw, shape);
  } catch (const Error& bad) {
    throw refuse(" (" + std::string(bad.what()) + ")");
  }
  if (e.uses_shape && !shape) return std::nullopt;
  std::string from;
  if (e.uses_shape)
    from = " = " + format_number(e.value) + " with K=" + std::to_string(shape->K) + ", d=" + std::to_string(shape->d) +
           ", n=" + std::to_string(shape->n);
  if (!std::isfinite(e.value)) throw refuse(from.empty() ? " (not a finite number)" : from);
  if (spec.type == ParamType::integer) {
    if (e.value != std::floor(e.value) || std::abs(e.value) > 9.0e15)
      throw refuse(from.empty() ? " (not an integer)" : from);
    if (!within(spec, e.value)) throw refuse(from);
    return ParamValue{static_cast<std::int64_t>(e.value)};
  }
  if (!within(spec, e.value)) throw refuse(from);
  return ParamValue{e.value};
}

std::optional<ParamValue> resolve_default(const ParamSpec& spec, const ProblemShape* shape) {
  try {
    return resolve_param(spec, spec.default_value, shape);
  } catch (const Error& bad) {
    throw std::logic_error("the declared default of parameter '" + spec.name + "' is invalid: " + bad.what());
  }
}

ParamValues resolve_params(const std::vector<ParamSpec>& specs, const GivenParams& given, const ProblemShape* shape,
                           const std::string& where, const std::string& prefix) {
  ParamValues values;
  for (const auto& spec : specs) {
    const std::string key = prefix + spec.name;
    const std::optional<GivenParam> text = given(key);
    std::optional<ParamValue> value;
    if (text) {
      try {
        value = resolve_param(spec, text->text, shape);
      } catch (const Error& bad) {
        throw Error(text->where, bad.what());
      }
    } else if (!spec.required) {
      value = resolve_default(spec, shape);
    } else {
      throw Error(where + ": parameter " + key, "is required and was not given");
    }
    if (!value) throw Error(where + ": parameter " + key, "needs the data's shape (K, d, n), which is not known here");
    values.set(spec.name, std::move(*value));
  }
  return values;
}

GivenParams given_by_name(const std::map<std::string, std::string>& texts, const std::string& where) {
  return [&texts, where](const std::string& key) -> std::optional<GivenParam> {
    const auto it = texts.find(key);
    if (it == texts.end()) return std::nullopt;
    return GivenParam{it->second, where + ": parameter " + key};
  };
}

}  // namespace glimpse
