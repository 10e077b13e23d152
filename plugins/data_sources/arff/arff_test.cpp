// The ARFF reader: numeric and nominal attributes, sparse rows, class selection, errors with file and line.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

class Arff : public ReaderTest {
 protected:
  Arff() : ReaderTest("arff", "d.arff") {}
};

const std::string header = R"(% a comment
@RELATION test
@ATTRIBUTE 'size cm' REAL
@ATTRIBUTE colour {red, 'dark blue', green}
@attribute class {a,b,c}
@DATA
)";

TEST_F(Arff, DenseRowsOneHotNominalsAndDeclaredClassOrder) {
  const Dataset d = load(header + "1.5,red,c\n-2,'dark blue',a\n% comment\n0,green,c\n");
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d.dim(), 4);                                           // size + 3 one-hot colours
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"a", "c"}));  // b never occurs
  EXPECT_EQ(d.label(0), 1);
  EXPECT_EQ(std::vector<float>(d.row(1).values, d.row(1).values + 4), (std::vector<float>{-2, 0, 1, 0}));
  const Dataset all = load(header + "1.5,red,c\n", {{"keep_empty_classes", "true"}, {"nominal", "index"}});
  EXPECT_EQ(all.num_classes(), 3);
  EXPECT_EQ(all.dim(), 2);
}

TEST_F(Arff, SparseRowsAndClassAttributeByName) {
  const Dataset d = load(header + "{0 2.5, 2 b}\n{1 green}\n", {{"class_attribute", "class"}});
  EXPECT_EQ(std::vector<float>(d.row(0).values, d.row(0).values + 4), (std::vector<float>{2.5, 1, 0, 0}));
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"a", "b"}));  // omitted class = first declared value
  EXPECT_EQ(d.label(1), 0);
}

// Words (2+ letters, digits or _, lowercased; Weka's \n escape separates them): row 0 the, cat, and, the, dog, ran;
// row 1 dog, dog ("a" is too short); row 2 none ('?'). In the most rows: dog (2), then of the words in one row the
// one met first, the. So d = 1 + 2: n, dog, the; counts per row.
TEST_F(Arff, StringAttributesAsWordCountsInSparseRows) {
  const std::string text =
      "@relation r\n@attribute n real\n@attribute t string\n@attribute c {x,y}\n@data\n"
      "1,'The cat and the dog\\nran',x\n0,'a dog? A DOG!',y\n2,?,x\n";
  const Dataset d = load(text, {{"text", "word_counts"}, {"vocabulary", "2"}});
  ASSERT_EQ(d.dim(), 3);
  ASSERT_FALSE(d.is_dense());
  const auto row = [&](std::int64_t i) {
    const Instance r = d.row(i);
    std::vector<std::pair<std::int32_t, float>> out;
    for (std::int32_t k = 0; k < r.nnz; ++k) out.emplace_back(r.indices[k], r.values[k]);
    return out;
  };
  using Row = std::vector<std::pair<std::int32_t, float>>;
  EXPECT_EQ(row(0), (Row{{0, 1.f}, {1, 1.f}, {2, 2.f}}));
  EXPECT_EQ(row(1), (Row{{1, 2.f}}));
  EXPECT_EQ(row(2), (Row{{0, 2.f}}));
  EXPECT_EQ(d.label(1), 1);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "text: word_counts: 2 words kept of 5 distinct (those in the most rows)");
  EXPECT_EQ(load(text, {{"text", "word_counts"}}).dim(), 6);  // every word kept
}

TEST_F(Arff, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(refusal(header + "1,red\n"), file() + ":7: expected 3 values, got 2");
  EXPECT_EQ(refusal(header + "1,purple,a\n"),
            file() + ":7: attribute 'colour': 'purple' is not one of its declared values");
  EXPECT_EQ(refusal(header + "x,red,a\n"), file() + ":7: attribute 'size cm': expected a number, got 'x'");
  EXPECT_EQ(refusal(header + "?,red,a\n"), file() +
                                               ":7: attribute 'size cm': missing value ('?'; the source's "
                                               "non_finite parameter can read it as 0)");
  EXPECT_EQ(refusal(header + "1,red,?\n"), file() + ":7: the class is missing ('?')");
  // Found by fuzzing: a huge sparse index was cast to an integer before its range was checked (UBSan).
  EXPECT_EQ(refusal(header + "{5e44 1.5, 2 a}\n"), file() + ":7: attribute index 5e44 outside 0..2");
  // Found by fuzzing: a nominal attribute with no values, read in a sparse row (its omitted value is the first).
  EXPECT_EQ(refusal("@relation r\n@attribute x real\n@attribute c {}\n@data\n{0 1}\n"),
            file() + ":3: attribute 'c': expected at least one value in {}");
  EXPECT_EQ(refusal("@relation r\n@attribute s string\n"),
            file() + ":2: attribute 's': a string attribute (the source's text parameter can read it as word counts: "
                     "text: word_counts)");
  EXPECT_EQ(refusal("@relation r\n@attribute s date\n"),
            file() + ":2: attribute 's': expected numeric, real, integer, string or {values}, got 'date' (date "
                     "attributes are not supported)");
  EXPECT_EQ(refusal("@relation r\n@attribute x real\n@attribute y real\n@data\n1,2\n"),
            file() + ":4: the class attribute 'y' must be nominal ({...})");
  EXPECT_EQ(refusal(header), file() + ": no data rows");
  EXPECT_EQ(refusal(header + "1,red,a\n", {{"class_attribute", "kind"}}),
            file() + ":6: class_attribute: expected last, first or one of size cm, colour, class, got 'kind'");
}

}  // namespace
}  // namespace glimpse::testing
