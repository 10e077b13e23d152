#include "new_plugin.hpp"

#include <fstream>
#include <regex>
#include <string>

#include "glimpse/error.hpp"

namespace glimpse::cli {
namespace {

// @NAME@ is the plugin's name, @CLASS@ its C++ class name.
constexpr const char* learner_source =
    R"(// @NAME@: a multiclass Perceptron to start from (written by `glimpse new learner @NAME@`). Change the update in
// learn(), keep what the round loop relies on: reset() sizes every buffer, predict() and learn() do not allocate.
#include <glimpse/glimpse.hpp>
#include <variant>
#include <vector>

namespace {

class @CLASS@ final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "@NAME@",
            .kind = glimpse::PluginKind::learner,
            .revision = 1,  // bump whenever its numbers may change: results pages record it
            .summary = "multiclass Perceptron: on a mistake, w_y += eta x and w_predicted -= eta x",
            .reference = "",
            .params = {glimpse::ParamSpec::real("eta", "1", "step size").above(0).into(&@CLASS@::eta_)},
            .accepts = {glimpse::FeedbackKind::label}};  // learns from the true label ("full" oracle)
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t /*seed: key of the run's random stream*/) override {
    k_ = shape.K;
    d_ = shape.d;
    weights_.assign(static_cast<std::size_t>(k_) * static_cast<std::size_t>(d_), 0.0);
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    for (std::int32_t c = 0; c < k_; ++c) pred.scores[static_cast<std::size_t>(c)] = score(c, x);
    pred.predicted = glimpse::argmax(pred.scores);  // lowest label on ties
    pred.proposed = pred.predicted;
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);  // -1 when the round brought no label
    if (y < 0 || y == pred.predicted) return;
    add(y, eta_, x);
    add(pred.predicted, -eta_, x);
  }

 private:
  double score(std::int32_t c, const glimpse::Instance& x) const {
    const double* w = weights_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(d_);
    double s = 0;
    for (std::int32_t e = 0; e < x.nnz; ++e) s += w[x.sparse ? x.indices[e] : e] * x.values[e];
    return s;
  }
  void add(std::int32_t c, double step, const glimpse::Instance& x) {
    double* w = weights_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(d_);
    for (std::int32_t e = 0; e < x.nnz; ++e) w[x.sparse ? x.indices[e] : e] += step * x.values[e];
  }

  double eta_ = 1;  // bound to the parameter "eta": glimpse stores its value here
  std::int32_t k_ = 0, d_ = 0;
  std::vector<double> weights_;
};

}  // namespace

GLIMPSE_PLUGIN(@CLASS@)
)";

constexpr const char* learner_test =
    R"(// @NAME@'s unit tests, with glimpse's test helpers (glimpse/testing_gtest.hpp). Values worked out by hand.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

TEST(@CLASS@, RefusesAStepSizeOutsideItsRange) {
  EXPECT_THROW(make<Learner>("@NAME@", {{"eta", "0"}}), Error);
}

TEST(@CLASS@, AMistakeMovesTheTrueClassTowardTheRowAndTheGuessAway) {
  auto learner = make<Learner>("@NAME@", {{"eta", "0.5"}});
  learner->reset({.n = 1, .d = 2, .K = 3}, 1);
  const DenseRow x({1.0f, 2.0f});
  Prediction pred = prediction_for(3);
  learner->predict(x.view(), pred);
  EXPECT_EQ(pred.predicted, 0);  // every score 0: the lowest label
  learner->learn(x.view(), pred, LabelFeedback{.label = 2});
  learner->predict(x.view(), pred);
  EXPECT_DOUBLE_EQ(pred.scores[0], -2.5);  // w_0 = -0.5 x: -0.5 * (1*1 + 2*2)
  EXPECT_DOUBLE_EQ(pred.scores[1], 0.0);
  EXPECT_DOUBLE_EQ(pred.scores[2], 2.5);
  EXPECT_EQ(pred.predicted, 2);
}

}  // namespace
}  // namespace glimpse::testing
)";

constexpr const char* in_tree_cmake =
    R"(glimpse_add_plugin(NAME @NAME@ KIND learner SOURCES @NAME@.cpp TESTS @NAME@_test.cpp)
)";

constexpr const char* out_of_tree_cmake = R"(cmake_minimum_required(VERSION 3.25)
project(@NAME@ LANGUAGES CXX)
find_package(glimpse REQUIRED)  # C++20, the include paths and glimpse_add_plugin
enable_testing()
glimpse_add_plugin(NAME @NAME@ KIND learner SOURCES @NAME@.cpp TESTS @NAME@_test.cpp)
)";

constexpr const char* readme = R"(# @NAME@

A multiclass Perceptron to start from, written by `glimpse new learner @NAME@`: on a mistake, w_y += eta x and
w_predicted -= eta x. Replace the update in `learn()` with yours and say here what it is: the paper and
equation, and the parameters with the paper's symbols.

| parameter | default | meaning |
|---|---|---|
| `eta` | 1 | step size (> 0) |

@BUILD@
In a protocol:

```json
{"name": "@NAME@", "grid": {"eta": [0.1, 1]}}
```

Tests: `@NAME@_test.cpp`, with glimpse's helpers (glimpse/testing_gtest.hpp); docs/writing-a-plugin.md has the rest.
)";

constexpr const char* in_tree_build =
    R"(Built with glimpse (`cmake --build build`); its tests join the tree's test program (`ctest --test-dir build
-R '^@CLASS@\.'`), and `build/bin/glimpse describe @NAME@` shows it. Every learner in the tree is also held to the
learner contract (determinism, finite scores, a golden fingerprint of its arithmetic): once its numbers are what
you want, record the fingerprint with
`GLIMPSE_UPDATE_GOLDEN=1 build/bin/glimpse_tests --gtest_filter='LearnerContract.*'`.
)";

constexpr const char* out_of_tree_build =
    R"(Build and test against an installed glimpse (`cmake --install build --prefix $HOME/glimpse` in the glimpse tree):

```sh
cmake -S . -B build -DCMAKE_PREFIX_PATH=$HOME/glimpse -DCMAKE_BUILD_TYPE=Release
cmake --build build && ctest --test-dir build
GLIMPSE_PLUGIN_PATH=$PWD/build $HOME/glimpse/bin/glimpse describe @NAME@
```
)";

std::string filled(std::string text, const std::string& name, const std::string& class_name) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"@NAME@", name}, {"@CLASS@", class_name}})
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

}  // namespace

std::vector<std::filesystem::path> write_new_learner(const std::string& name, const std::filesystem::path& folder,
                                                     bool in_tree) {
  if (!std::regex_match(name, std::regex("[a-z][a-z0-9_]*")))
    throw Error(name, "a plugin name is lower_snake_case (letters, digits and _, starting with a letter)");
  if (std::filesystem::exists(folder)) throw Error(folder.string(), "exists already; choose another name or --out");
  std::string class_name;  // my_learner -> MyLearner
  bool upper = true;
  for (const char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    class_name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  std::filesystem::create_directories(folder);
  const std::string build = filled(in_tree ? in_tree_build : out_of_tree_build, name, class_name);
  const std::vector<std::pair<std::string, std::string>> files{
      {name + ".cpp", filled(learner_source, name, class_name)},
      {name + "_test.cpp", filled(learner_test, name, class_name)},
      {"CMakeLists.txt", filled(in_tree ? in_tree_cmake : out_of_tree_cmake, name, class_name)},
      {"README.md",
       filled(std::string(readme).replace(std::string(readme).find("@BUILD@"), 7, build), name, class_name)}};
  std::vector<std::filesystem::path> written;
  for (const auto& [file, text] : files) {
    const auto path = folder / file;
    std::ofstream out(path);
    out << text;
    if (!out) throw Error(path.string(), "cannot be written");
    written.push_back(path);
  }
  return written;
}

}  // namespace glimpse::cli
