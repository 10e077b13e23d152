// Turns a protocol's text for a parameter into a typed, range-checked value.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "glimpse/params.hpp"

namespace glimpse {

// Returns the value, or nullopt when it is an expression of K, d, n and `shape` is not known yet (syntax
// is still checked). Throws Error("expected <expectation>, got <raw>") without a location prefix.
std::optional<ParamValue> resolve_param(const ParamSpec& spec, const std::string& raw, const ProblemShape* shape);

// A path parameter as written, resolved against the protocol's folder unless absolute or empty.
std::filesystem::path resolve_path(const std::filesystem::path& base_dir, const std::string& written);

// The value a parameter takes when the protocol does not give one.
std::optional<ParamValue> resolve_default(const ParamSpec& spec, const ProblemShape* shape);

}  // namespace glimpse
