// The CSV reader: headers, label columns, ignored columns, quoting, and errors with file and line.

#include <cmath>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

class Csv : public ReaderTest {
 protected:
  Csv() : ReaderTest("csv", "d.csv") {}
};

TEST_F(Csv, HeaderNamedLabelAndIgnoredColumn) {
  const Dataset d = load("speaker,x1,\"x,2\",class\n0,1.5,2,hid\n1,-1,3e1,had\n0,0,0,hid\n",
                         {{"label_column", "class"}, {"ignore_columns", "speaker"}});
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d.dim(), 2);
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"had", "hid"}));  // text labels sorted
  EXPECT_EQ(d.label(0), 1);
  EXPECT_EQ(std::vector<float>(d.row(1).values, d.row(1).values + 2), (std::vector<float>{-1, 30}));
}

TEST_F(Csv, NoHeaderFirstColumnLabelNumericClassesSortedNumerically) {
  const Dataset d = load("10 1 2\n2 3 4\n10 5 6\n", {{"label_column", "first"}, {"delimiter", "space"}});
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"2", "10"}));
  EXPECT_EQ(d.label(0), 1);
  EXPECT_EQ(d.dim(), 2);
}

TEST_F(Csv, ErrorsNameTheFileLineAndColumn) {
  EXPECT_EQ(refusal("a,b,y\n1,2,0\n1,2\n"), file() + ":3: expected 3 fields, got 2");
  EXPECT_EQ(refusal("a,b,y\n1,x,0\n"), file() + ":2: column 'b': expected a number, got 'x'");
  EXPECT_EQ(refusal("1,?,0\n"),
            file() + ":1: column 2: missing value ('?'; the source's non_finite parameter can read it as 0)");
  EXPECT_EQ(refusal("1,nan,0\n"),
            file() + ":1: column 2: value is not finite ('nan'; the source's non_finite parameter can read it as 0)");
  EXPECT_EQ(
      refusal("a,b,y\n1,2,0\n", {{"label_column", "z"}}),
      file() + ":1: label_column: expected first, last, a column number in 1..3 or a header name (a, b, y), got 'z'");
  EXPECT_EQ(refusal("1,2,5\n", {{"num_classes", "3"}}), file() + ":1: label 5 is outside 1..3 (num_classes)");
  EXPECT_EQ(load("1,?,1\n", {{"non_finite", "zero"}}).row(0).values[1], 0.0f);
  // A finite double beyond float's range is named at its line too, and non_finite applies to it.
  EXPECT_EQ(refusal("a,b,y\n1,2,0\n1,1e39,1\n"),
            file() +
                ":3: column 'b': value is beyond a 32-bit float's range ('1e39'; the source's non_finite "
                "parameter can read it as 0)");
  EXPECT_EQ(load("1,1e39,1\n", {{"non_finite", "zero"}}).row(0).values[1], 0.0f);
}

TEST_F(Csv, MissingValuesDroppedOrKeptForImpute) {
  const std::string text = "a,b,y\n1,2,0\n1,?,1\n3,,0\n4,5,1\n";
  const Dataset dropped = load(text, {{"non_finite", "drop"}});
  EXPECT_EQ(dropped.size(), 2);
  EXPECT_EQ(dropped.row(1).values[0], 4.0f);
  ASSERT_FALSE(dropped.notes.empty());  // (after the note of the classes' mapping)
  EXPECT_EQ(dropped.notes.back(),
            "non_finite: drop: dropped 2 of 4 rows with a missing or non-finite value (the first "
            "at " +
                file() + ":3)");
  const Dataset kept = load(text, {{"non_finite", "keep"}});
  EXPECT_EQ(kept.size(), 4);
  EXPECT_TRUE(std::isnan(kept.row(1).values[1]));
  EXPECT_TRUE(std::isnan(kept.row(2).values[1]));
  EXPECT_EQ(kept.row(2).values[0], 3.0f);
  EXPECT_EQ(refusal("1,?,0\n", {{"non_finite", "drop"}}),
            file() + ": no data rows: every row had a missing or non-finite value (non_finite: drop)");
}

}  // namespace
}  // namespace glimpse::testing
