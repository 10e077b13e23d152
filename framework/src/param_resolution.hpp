// Turns a protocol's text for a parameter into a typed, range-checked value.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/params.hpp"

namespace glimpse {

// Returns the value, or nullopt when it is an expression of K, d, n and `shape` is not known yet (syntax
// is still checked). Throws Error("expected <expectation>, got <raw>") without a location prefix.
std::optional<ParamValue> resolve_param(const ParamSpec& spec, const std::string& raw, const ProblemShape* shape);

// Whether a parameter's text is a plain number as strtod reads it (JSON writes it unquoted).
bool is_number_text(const std::string& text);

// A path parameter as written, resolved against the protocol's folder unless absolute or empty.
std::filesystem::path resolve_path(const std::filesystem::path& base_dir, const std::string& written);

// The value a parameter takes when the protocol does not give one.
std::optional<ParamValue> resolve_default(const ParamSpec& spec, const ProblemShape* shape);

// Every parameter of `specs`: the text `given` for it, else its declared default. A bad value throws
// Error(where + ": parameter NAME", why), as does an expression of K, d, n when `shape` is null.
ParamValues resolve_params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& given,
                           const ProblemShape* shape, const std::string& where);

}  // namespace glimpse
