#!/usr/bin/env bash
# Installs glimpse into a scratch prefix, builds examples/first_plugin against it with find_package(glimpse),
# loads it through GLIMPSE_PLUGIN_PATH and runs it in a protocol with the installed CLI.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD_DIR" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$SOURCE_DIR/examples/first_plugin" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
test -f "$work/build/majority.so"
export GLIMPSE_PLUGIN_PATH="$work/build"
"$work/prefix/bin/glimpse" describe majority | grep "predicts the most frequent label seen so far" > /dev/null
cd "$work"
"$work/prefix/bin/glimpse" run "$SOURCE_DIR/examples/first_plugin/protocol.json" -o "$work/out.h5" --quiet
summary=$("$work/prefix/bin/glimpse" summary "$work/out.h5")
echo "$summary"
# 4 balanced classes in class order, shuffled: the majority baseline stays near 25%.
echo "$summary" | grep -E "majority +\{\"prior\":[0-9.]+\} +2 +(2[0-9]|3[0-3])\.[0-9]%" > /dev/null

# A linear learner out of tree: <glimpse/linear_model.hpp> through glimpse::plugin_common, the name
# docs/writing-a-plugin.md gives (section 4); it also keeps a sketched second-order state, whose members are compiled
# in the installed glimpse::plugin_common_compiled, which glimpse::plugin_common must bring along.
mkdir -p "$work/linear"
cat > "$work/linear/CMakeLists.txt" << 'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(linear_check CXX)
find_package(glimpse REQUIRED)
glimpse_add_plugin(NAME linear_check KIND learner SOURCES linear_check.cpp LIBRARIES glimpse::plugin_common)
CMAKE
cat > "$work/linear/linear_check.cpp" << 'CPP'
#include <glimpse/glimpse.hpp>
#include <glimpse/algorithms/second_order_state.hpp>
#include <glimpse/linear_model.hpp>
namespace {
class LinearCheck final : public glimpse::LinearLearner<float> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "linear_check", .kind = glimpse::PluginKind::learner, .summary = "a Perceptron, out of tree",
            .accepts = {glimpse::FeedbackKind::label}};
  }
  explicit LinearCheck(const glimpse::ParamValues&) { sketch_.reset(2, 1.0, 1); }
  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0 || y == pred.predicted) return;
    model_.add_to_row(y, 1.0f, x);
    model_.add_to_row(pred.predicted, -1.0f, x);
  }

 private:
  glimpse::algorithms::SketchedSecondOrderState sketch_;
};
}  // namespace
GLIMPSE_PLUGIN(LinearCheck)
CPP
cmake -S "$work/linear" -B "$work/linear/build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/linear_configure.log" ||
  { cat "$work/linear_configure.log"; exit 1; }
cmake --build "$work/linear/build" > "$work/linear_build.log" || { cat "$work/linear_build.log"; exit 1; }
GLIMPSE_PLUGIN_PATH="$work/linear/build" "$work/prefix/bin/glimpse" describe linear_check | grep -q "a Perceptron, out of tree"
nm -C --defined-only "$work/linear/build/linear_check.so" > "$work/linear_symbols.txt"  # not piped: grep -q ends nm early
grep -q "SketchedSecondOrderState::reset" "$work/linear_symbols.txt" ||
  { echo "linear_check.so lacks the sketch's members: glimpse::plugin_common did not bring plugin_common_compiled"; exit 1; }
echo "1 passed, 0 failed"
