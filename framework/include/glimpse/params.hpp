// Plugin parameters: declared once (name, type, default, range, one-line doc), then validated by the host
// against protocol values and handed to the plugin's constructor resolved and typed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace glimpse {

class PluginObject;
class ParamValues;

// The size of the problem a parameter expression may refer to as K, d and n.
struct ProblemShape {
  std::int64_t n = 0;  // rows in the dataset
  std::int32_t d = 0;  // feature dimension
  std::int32_t K = 0;  // classes
  bool sparse = false;  // rows are stored sparse (CSR): linear models then keep weights feature-major
};

// `path`: a file name, relative to the protocol's folder unless absolute; the host checks that the file exists
// before any run starts, and the plugin reads the resolved path with ParamValues::path().
// `learner`: another learner plugin, by name, that this plugin wraps (e.g. an explorer around a full-feedback
// learner). The protocol gives that learner's own parameters as "NAME.PARAM" (in params or grid); the host checks
// them against its declaration and the plugin creates it with ParamValues::create().
enum class ParamType { real, integer, boolean, choice, text, path, learner };

struct ParamBound {
  double value = 0.0;
  bool open = false;  // true: the bound itself is excluded
};

// One declared parameter. Real and integer defaults may be expressions of K, d, n ("1/(2*(K-1))").
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::real;
  std::string default_value;  // as it would be written in a protocol; unused when `required`
  bool required = false;
  std::optional<ParamBound> lower;
  std::optional<ParamBound> upper;
  std::vector<std::string> choices;  // ParamType::choice only
  std::string doc;

  static ParamSpec real(std::string name, std::string default_value, std::string doc);
  static ParamSpec integer(std::string name, std::string default_value, std::string doc);
  static ParamSpec boolean(std::string name, bool default_value, std::string doc);
  static ParamSpec choice(std::string name, std::string default_value, std::vector<std::string> choices,
                          std::string doc);
  static ParamSpec text(std::string name, std::string default_value, std::string doc);
  // An empty default means "no file" unless the parameter is mandatory.
  static ParamSpec path(std::string name, std::string doc);
  // A learner plugin's name; the learner must learn from full labels (FeedbackKind::label).
  static ParamSpec learner(std::string name, std::string default_value, std::string doc);

  ParamSpec&& above(double v) && {
    lower = ParamBound{v, true};
    return std::move(*this);
  }
  ParamSpec&& at_least(double v) && {
    lower = ParamBound{v, false};
    return std::move(*this);
  }
  ParamSpec&& below(double v) && {
    upper = ParamBound{v, true};
    return std::move(*this);
  }
  ParamSpec&& at_most(double v) && {
    upper = ParamBound{v, false};
    return std::move(*this);
  }
  ParamSpec&& mandatory() && {
    required = true;
    return std::move(*this);
  }

  // Binds the parameter to a field of the plugin class C, so that its name is written once, here: the host stores
  // the resolved value there when it creates the plugin (plugin.hpp's create_plugin). Arithmetic fields take the
  // real or integer value cast to their type, bool the boolean, std::string the text as written (text, choice,
  // path), std::filesystem::path the resolved path, an enum the index of the value among `choices` (declare the
  // enum's values in the choices' order), a std::unique_ptr<Learner> the learner a `learner` parameter names.
  // Defined in plugin.hpp.
  template <class C, class Field>
  ParamSpec&& into(Field C::*field) &&;
  // The same for a field of a member struct: into(&MyLearner::options_, &Options::tolerance).
  template <class C, class Part, class Field>
  ParamSpec&& into(Part C::*part, Field Part::*field) &&;
  // What into() leaves: stores this parameter's value in the object. Empty when the plugin reads ParamValues itself.
  std::function<void(PluginObject& object, const ParamValues& values)> assign;

  // "a number in (0, 1]", "an integer >= 1", "one of lowest, random", ...
  std::string expectation() const;
  std::string type_name() const;
};

using ParamValue = std::variant<double, std::int64_t, bool, std::string>;

// Resolved values, in declaration order. Accessors throw std::logic_error on a name the plugin did not
// declare or on the wrong type: that is a bug in the plugin, not a user error.
class ParamValues {
 public:
  void set(std::string name, ParamValue value);
  bool contains(std::string_view name) const noexcept;

  double real(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  bool boolean(std::string_view name) const;
  const std::string& text(std::string_view name) const;  // text, choice and path parameters, as written
  // A path parameter resolved against the protocol's folder; empty when the protocol gave none.
  std::filesystem::path path(std::string_view name) const;
  void set_base_dir(std::filesystem::path dir) { base_dir_ = std::move(dir); }

  // A new object of the plugin a `learner` parameter names, with its "NAME.PARAM" values (the host supplies
  // the factory when it resolves the parameters). Throws std::logic_error when there is none.
  std::unique_ptr<PluginObject> create(std::string_view name) const;
  using Factory = std::function<std::unique_ptr<PluginObject>()>;
  void set_factory(std::string name, Factory factory);

  const std::vector<std::pair<std::string, ParamValue>>& entries() const noexcept { return entries_; }
  // {"beta":0.5,"tie_break":"lowest"}: stable text used in run metadata and stream keys (paths as written, so
  // results do not depend on where the protocol lies).
  std::string to_json() const;

 private:
  const ParamValue& find(std::string_view name) const;
  std::vector<std::pair<std::string, ParamValue>> entries_;
  std::filesystem::path base_dir_;
  std::vector<std::pair<std::string, Factory>> factories_;
};

// Renders a value as JSON (numbers with round-trip precision).
std::string param_value_json(const ParamValue& value);

}  // namespace glimpse
