// The python family's bridge, in process: a member is described from its class's declarations, a round's row and
// feedback reach Python and its scores come back (a Perceptron worked by hand), and a Python exception becomes an
// Error naming the file and line. tests/cli/python_learners.sh runs whole protocols (same traces as C++).
#include <fstream>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

// A NumPy Perceptron, as examples/python/perceptron.py, whose learn() raises on label 2 (at line 17 of the file).
constexpr const char* module_text = R"(import numpy as np
class Perceptron:
    """a Perceptron that refuses label 2"""
    accepts = ["label"]
    params = {"eta": {"type": "real", "default": 1.0, "above": 0, "help": "step size"}}
    def __init__(self, params):
        self.eta = params["eta"]
    def reset(self, n, d, K, seed):
        self.W = np.zeros((K, d))
    def predict(self, x):
        return self.W @ x
    def learn(self, x, predicted, proposed, feedback):
        kind, y = feedback
        if y == predicted:
            return
        if y == 2:
            raise ValueError("label 2 refused")
        self.W[y] += self.eta * x
        self.W[predicted] -= self.eta * x
)";

class PythonLearner : public ::testing::Test {
 protected:
  PythonLearner() {
    std::ofstream(dir.path() / "perceptron.py") << module_text;
    name = "python:" + (dir.path() / "perceptron.py").string() + ":Perceptron";
  }
  TempDir dir;
  std::string name;
};

TEST_F(PythonLearner, MemberIsDescribedFromTheClassDeclarations) {
  const PluginSpec& spec = plugins().spec(name);
  EXPECT_EQ(spec.name, name);
  EXPECT_EQ(spec.kind, PluginKind::learner);
  EXPECT_EQ(spec.summary, "a Perceptron that refuses label 2");
  EXPECT_TRUE(spec.accepts.contains(FeedbackKind::label));
  ASSERT_EQ(spec.params.size(), 1u);
  EXPECT_EQ(spec.params[0].name, "eta");
  EXPECT_NE(error_of([&] { make<Learner>(name, {{"eta", "0"}}); }).find("eta"), std::string::npos);
}

TEST_F(PythonLearner, RoundsReachPythonAndItsScoresComeBack) {
  // K = 3, x = (1, 2), y = 1, eta 0.5: all scores 0, so 0 is predicted; wrong: w_1 += x / 2, w_0 -= x / 2, and the
  // scores on x become (-2.5, 2.5, 0).
  auto learner = make<Learner>(name, {{"eta", "0.5"}});
  learner->reset({10, 2, 3}, 0);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  learner->predict(x.view(), pred);
  EXPECT_EQ(pred.predicted, 0);
  learner->learn(x.view(), pred, LabelFeedback{1});
  learner->predict(x.view(), pred);
  EXPECT_EQ(pred.scores, (std::vector<double>{-2.5, 2.5, 0}));
  EXPECT_EQ(pred.predicted, 1);
}

TEST_F(PythonLearner, AnExceptionIsAnErrorNamingTheFileAndLine) {
  auto learner = make<Learner>(name);
  learner->reset({10, 2, 3}, 0);
  const DenseRow x({1, 2});
  Prediction pred = prediction_for(3);
  learner->predict(x.view(), pred);
  const std::string message = error_of([&] { learner->learn(x.view(), pred, LabelFeedback{2}); });
  EXPECT_NE(message.find("ValueError: label 2 refused"), std::string::npos) << message;
  EXPECT_NE(message.find("perceptron.py:17 in learn"), std::string::npos) << message;
}

}  // namespace
}  // namespace glimpse::testing
