// cost_matrix.hpp (cs_selectron, cost, regret): built-in shapes, the Bayes choice, file validation, column variation.
#include <glimpse/algorithms/cost_matrix.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

ParamValues cost_values(const std::map<std::string, std::string>& overrides) {
  return resolve(algorithms::cost_params(), overrides);
}

TEST(CostMatrices, BuiltInShapesBayesChoiceAndFileValidation) {
  algorithms::CostMatrix block(cost_values({{"costs", "block"}, {"cost_groups", "2"}}));
  block.reset(4);
  EXPECT_EQ(block(0, 1), 0.0);
  EXPECT_EQ(block(1, 2), 1.0);
  // p = (0.3, 0.3, 0.4, 0): 0/1 costs pick class 3 (index 2), block costs the group {1, 2} (expected cost of
  // predicting 1 is p3 + p4 = 0.4 < 0.6 for predicting 3).
  const std::vector<double> p{0.3, 0.3, 0.4, 0.0};
  algorithms::CostMatrix zero_one(cost_values({}));
  zero_one.reset(4);
  EXPECT_EQ(zero_one.bayes(p), 2);
  EXPECT_EQ(block.bayes(p), 0);
  EXPECT_NEAR(block.expected(p, 0), 0.4, 1e-15);
  algorithms::CostMatrix tree(cost_values({{"costs", "tree"}}));
  tree.reset(4);  // leaves 1,2 | 3,4 under one root: siblings 2 edges apart, cousins 4
  EXPECT_EQ(tree(0, 1), 2.0);
  EXPECT_EQ(tree(0, 2), 4.0);
  EXPECT_EQ(tree(3, 2), 2.0);
  EXPECT_EQ(tree.max(), 4.0);

  TempDir dir;
  const auto file = dir.path() / "costs.csv";
  { std::ofstream(file) << "0,1,5\n2,0,1\n1,1,0\n"; }
  algorithms::CostMatrix from_file(cost_values({{"costs", "file"}, {"cost_file", file.string()}}));
  from_file.reset(3);
  EXPECT_EQ(from_file(0, 2), 5.0);
  EXPECT_EQ(error_of([&] { from_file.reset(4); }),
            file.string() + ": is a 3 x 3 matrix; expected K x K = 4 x 4 (rows and columns are the classes in order)");
  { std::ofstream(file) << "0,1\n2,3\n"; }
  EXPECT_EQ(error_of([&] {
              algorithms::CostMatrix(cost_values({{"costs", "file"}, {"cost_file", file.string()}}));
            }),
            file.string() + ":2: diagonal entry 2 is 3; a correct prediction must cost 0");
  { std::ofstream(file) << "0,-1\n2,0\n"; }
  EXPECT_EQ(error_of([&] {
              algorithms::CostMatrix(cost_values({{"costs", "file"}, {"cost_file", file.string()}}));
            }),
            file.string() + ":1: entry 2 is -1; expected a non-negative cost");
  EXPECT_EQ(error_of([&] {
              algorithms::CostMatrix(cost_values({{"costs", "file"}}));
            }),
            "costs = file needs the cost_file parameter");
}

}  // namespace
}  // namespace glimpse::testing

namespace glimpse::testing {
namespace {

TEST(CostMatrices, ColumnVariationOfZeroOneAndBlockCostsIsTheClosedForm) {
  for (const int k : {3, 4, 10}) {
    algorithms::CostMatrix zero_one(cost_values({}));
    zero_one.reset(k);
    EXPECT_NEAR(zero_one.column_variation(), 1.0 - 1.0 / k, 1e-12);
  }
  algorithms::CostMatrix block(cost_values({{"costs", "block"}, {"cost_groups", "2"}}));
  block.reset(10);  // (K / r)(1 - 1 / r) = 5 * 0.5
  EXPECT_NEAR(block.column_variation(), 2.5, 1e-12);
}

}  // namespace
}  // namespace glimpse::testing
