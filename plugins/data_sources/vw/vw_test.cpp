// The Vowpal Wabbit text reader: namespaces, weights, default values, tags, and errors with file and line.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

class Vw : public ReaderTest {
 protected:
  Vw() : ReaderTest("vw", "d.vw") {}
};

const char* namespaced_rows = "2 'first| f1:0.5 f2 |colour:2 red f1:3\n1 0.7 |colour red:1.5| f1\n3 | f1 f1\n";

TEST_F(Vw, FlattensNamespacesAndAppliesWeights) {
  const Dataset d = load(namespaced_rows, {{"num_classes", "3"}, {"layout", "sparse"}});
  ASSERT_EQ(d.size(), 3);
  EXPECT_EQ(d.dim(), 4);  // " ^f1", " ^f2", "colour^red", "colour^f1" in order of appearance
  EXPECT_EQ(d.label(0), 1);
  const Instance r0 = d.row(0);
  ASSERT_EQ(r0.nnz, 4);
  EXPECT_EQ(std::vector<float>(r0.values, r0.values + 4), (std::vector<float>{0.5, 1, 2, 6}));
  const Instance r1 = d.row(1);
  ASSERT_EQ(r1.nnz, 2);
  EXPECT_EQ(r1.indices[0], 0);  // " ^f1" from the second, unnamed namespace
  EXPECT_EQ(r1.indices[1], 2);
  EXPECT_EQ(r1.values[1], 1.5f);
  EXPECT_EQ(d.row(2).nnz, 1);
  EXPECT_EQ(d.row(2).values[0], 2.0f);  // repeated features are summed

  // layout auto: 7 of the 12 entries are stored, so the rows are dense, with zeros where nothing was given.
  const Dataset dense = load(namespaced_rows, {{"num_classes", "3"}});
  ASSERT_TRUE(dense.is_dense());
  EXPECT_EQ(std::vector<float>(dense.row(1).values, dense.row(1).values + 4), (std::vector<float>{1, 0, 1.5, 0}));
  EXPECT_EQ(std::vector<float>(dense.row(2).values, dense.row(2).values + 4), (std::vector<float>{2, 0, 0, 0}));
}

TEST_F(Vw, MalformedLinesNameFileAndLine) {
  EXPECT_EQ(error_of([&] { load("1 | a\n2 a b\n"); }), file() + ":2: expected '|' before the features");
  EXPECT_EQ(error_of([&] { load("1:0.5 2:1 | a\n"); }),
            file() + ":1: label '1:0.5' is cost-sensitive (label:cost); expected a class number");
  EXPECT_EQ(error_of([&] { load("x | a\n"); }), file() + ":1: expected an integer class label, got 'x'");
  EXPECT_EQ(error_of([&] { load("1 | a:zz\n"); }), file() + ":1: feature 'a:zz': expected a number after ':'");
  EXPECT_EQ(error_of([&] {
              load("4 | a\n", {{"num_classes", "3"}});
            }),
            file() + ":1: label 4 is outside 1..3 (num_classes)");
}

}  // namespace
}  // namespace glimpse::testing
