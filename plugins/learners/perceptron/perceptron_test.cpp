// Multiclass Perceptron.
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

std::vector<double> column_scores(Learner& learner, int j, int d, int k) {
  std::vector<Feature> e(d, 0.0f);
  e[j] = 1.0f;
  DenseRow probe(e);
  Prediction pred;
  pred.scores.resize(k);
  learner.predict(probe.view(), pred);
  return pred.scores;
}

TEST(Perceptron, MistakeDrivenUpdatesMatchHandComputation) {
  for (const char* precision : {"float", "double"}) {
    auto p = make<Learner>("perceptron", {{"precision", precision}});
    p->reset({2, 2, 3}, 0);
    Prediction pred;
    pred.scores.resize(3);
    const DenseRow x1({1, 2}), x2({0, 1});
    p->predict(x1.view(), pred);
    EXPECT_EQ(pred.predicted, 0);
    p->learn(x1.view(), pred, LabelFeedback{1});  // w1 += x1, w0 -= x1
    p->predict(x2.view(), pred);
    EXPECT_EQ(pred.predicted, 1);                 // scores (-2, 2, 0)
    p->learn(x2.view(), pred, LabelFeedback{0});  // w0 += x2, w1 -= x2
    // W = [(-1, -1), (1, 1), (0, 0)]
    EXPECT_EQ(column_scores(*p, 0, 2, 3), (std::vector<double>{-1, 1, 0}));
    EXPECT_EQ(column_scores(*p, 1, 2, 3), (std::vector<double>{-1, 1, 0}));
    p->predict(x1.view(), pred);
    p->learn(x1.view(), pred, LabelFeedback{1});  // correct: no change
    EXPECT_EQ(column_scores(*p, 0, 2, 3), (std::vector<double>{-1, 1, 0}));
  }
}

TEST(Perceptron, MarginVariantUpdatesAgainstTheRunnerUpWhenCorrectButClose) {
  auto p = make<Learner>("perceptron", {{"margin", "1"}, {"eta", "0.5"}, {"precision", "double"}});
  p->reset({1, 1, 3}, 0);
  Prediction pred;
  pred.scores.resize(3);
  const DenseRow x({1});
  p->predict(x.view(), pred);
  p->learn(x.view(), pred, LabelFeedback{0});  // correct (tie -> 0) but margin 0 < 1: w0 += .5, w1 -= .5
  EXPECT_EQ(column_scores(*p, 0, 1, 3), (std::vector<double>{0.5, -0.5, 0}));
  p->predict(x.view(), pred);
  p->learn(x.view(), pred, LabelFeedback{0});  // margin 0.5 against class 2: w0 += .5, w2 -= .5
  EXPECT_EQ(column_scores(*p, 0, 1, 3), (std::vector<double>{1.0, -0.5, -0.5}));
  p->predict(x.view(), pred);
  p->learn(x.view(), pred, LabelFeedback{0});  // margin 1.5: no update
  EXPECT_EQ(column_scores(*p, 0, 1, 3), (std::vector<double>{1.0, -0.5, -0.5}));
}

TEST(Perceptron, SparseAndDenseRowsGiveTheSameModel) {
  auto dense = make<Learner>("perceptron");
  auto sparse = make<Learner>("perceptron");
  dense->reset({10, 6, 4}, 0);
  sparse->reset({10, 6, 4}, 0);
  Rng rng(7);
  Prediction a, b;
  a.scores.resize(4);
  b.scores.resize(4);
  for (int t = 0; t < 200; ++t) {
    SparseRow s{{}, {}, 6};
    std::vector<Feature> full(6, 0.0f);
    for (int j = 0; j < 6; ++j)
      if (rng.below(2)) {
        s.indices.push_back(j);
        s.values.push_back(static_cast<Feature>(rng.normal()));
        full[j] = s.values.back();
      }
    DenseRow d(full);
    dense->predict(d.view(), a);
    sparse->predict(s.view(), b);
    ASSERT_EQ(a.predicted, b.predicted) << "round " << t;
    for (int k = 0; k < 4; ++k) ASSERT_NEAR(a.scores[k], b.scores[k], 1e-4);
    const auto y = static_cast<std::int32_t>(rng.below(4));
    dense->learn(d.view(), a, LabelFeedback{y});
    sparse->learn(s.view(), b, LabelFeedback{y});
  }
}

}  // namespace
}  // namespace glimpse::testing
