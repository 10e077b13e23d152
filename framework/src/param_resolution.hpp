// Turns a protocol's text for a parameter into a typed, range-checked value.
#pragma once

#include <filesystem>
#include <functional>
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

// A parameter's text as written, and where, for errors ("file.json: learners[1].params.beta").
struct GivenParam {
  std::string text;
  std::string where;
};
// The text given for the parameter of this key ("eta"; "learner.eta" for a wrapped learner's); nullopt: not given.
using GivenParams = std::function<std::optional<GivenParam>(const std::string& key)>;

// Every parameter of `specs`, keyed `prefix` + its name: its given text, else its declared default. A bad text throws
// Error(where it was given, why); an expression of K, d, n when `shape` is null throws Error(where: parameter KEY).
// The one resolver: PluginRegistry::resolve adds a wrapped learner's parameters on top of it.
ParamValues resolve_params(const std::vector<ParamSpec>& specs, const GivenParams& given, const ProblemShape* shape,
                           const std::string& where, const std::string& prefix = "");
// Texts by name (`texts` must outlive the function returned); a bad one throws Error(where + ": parameter NAME", why).
GivenParams given_by_name(const std::map<std::string, std::string>& texts, const std::string& where);

}  // namespace glimpse
