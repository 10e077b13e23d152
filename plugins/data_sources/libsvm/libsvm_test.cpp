// The LIBSVM reader on good and malformed input; every error names the file and line.
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <glimpse/readers/text_input.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

class Libsvm : public ReaderTest {
 protected:
  Libsvm() : ReaderTest("libsvm", "d.txt") {}
};

TEST_F(Libsvm, ReadsSparseRowsCommentsAndMapsLabels) {
  const Dataset d = load("# header comment\n+1 1:0.5 3:-2\n\n-1 2:1e-1 # trailing\n1 3:4\r\n", {{"layout", "sparse"}});
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d.dim(), 3);
  EXPECT_EQ(d.num_classes(), 2);
  EXPECT_FALSE(d.is_dense());
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"-1", "1"}));
  EXPECT_EQ(std::vector<std::int32_t>(d.labels().begin(), d.labels().end()), (std::vector<std::int32_t>{1, 0, 1}));
  const Instance r0 = d.row(0);
  ASSERT_EQ(r0.nnz, 2);
  EXPECT_EQ(r0.indices[0], 0);
  EXPECT_EQ(r0.indices[1], 2);
  EXPECT_FLOAT_EQ(r0.values[1], -2.0f);
  EXPECT_FLOAT_EQ(d.row(1).values[0], 0.1f);
}

TEST_F(Libsvm, DenseLayoutFillsZeros) {
  const Dataset d = load("2 1:1 2:2\n1 2:3\n", {{"layout", "dense"}, {"num_features", "3"}});
  ASSERT_TRUE(d.is_dense());
  EXPECT_EQ(d.dim(), 3);
  const Instance r1 = d.row(1);
  EXPECT_EQ(std::vector<float>(r1.values, r1.values + 3), (std::vector<float>{0, 3, 0}));
}

TEST_F(Libsvm, FixedClassCountUsesLabelsAsTheyAre) {
  const Dataset d = load("3 1:1\n1 1:2\n", {{"num_classes", "4"}});
  EXPECT_EQ(d.num_classes(), 4);
  EXPECT_EQ(d.label(0), 2);
  EXPECT_EQ(refusal("3 1:1\n\n5 1:2\n", {{"num_classes", "4"}}), file() + ":3: label 5 is outside 1..4 (num_classes)");
  EXPECT_EQ(refusal("0 1:1\n", {{"num_classes", "4"}}), file() + ":1: label 0 is outside 1..4 (num_classes)");
}

TEST_F(Libsvm, LabelMappingsAreNotedAndNonIntegerLabelsRefused) {
  // 0-based labels (as LIBSVM and MNIST files often have): mapped, and said so once in the dataset's notes.
  const Dataset zero_based = load("0 1:1\n2 1:2\n1 1:3\n0 1:4\n");
  EXPECT_EQ(zero_based.num_classes(), 3);
  EXPECT_EQ(std::vector<std::int32_t>(zero_based.labels().begin(), zero_based.labels().end()),
            (std::vector<std::int32_t>{0, 2, 1, 0}));
  EXPECT_EQ(zero_based.notes,
            (std::vector<std::string>{"labels mapped to classes 1..3 in sorted order: 0=1, 1=2, 2=3"}));
  // -1/+1 (binary LIBSVM files).
  EXPECT_EQ(load("+1 1:1\n-1 1:2\n").notes,
            (std::vector<std::string>{"labels mapped to classes 1..2 in sorted order: -1=1, 1=2"}));
  // Labels that are already 1..K need no word.
  EXPECT_TRUE(load("2 1:1\n1 1:2\n3 1:3\n").notes.empty());
  // A label that is not an integer is not a class: refused at its line.
  EXPECT_EQ(refusal("1 1:1\n1.5 1:2\n2 1:3\n"),
            file() +
                ":2: label 1.5 is not an integer: numeric labels name classes (0-based, -1/+1 and any integers "
                "are mapped)");
  EXPECT_EQ(refusal("1 1:1\n2.5 1:2\n", {{"num_classes", "3"}}),
            file() + ":2: label 2.5 is not an integer (num_classes wants the integers 1..3)");
  // Declared classes with no rows are noted.
  EXPECT_EQ(load("1 1:1\n3 1:2\n", {{"num_classes", "4"}}).notes,
            (std::vector<std::string>{"class(es) 2, 4 of 1..4 have no rows"}));
}

TEST(LabelMapping, ManyLabelsAreAbbreviatedInTheNote) {
  readers::RawLabels raw;
  for (int i = 0; i < 20; ++i) raw.add(std::to_string(i * 10), i + 1);
  EXPECT_EQ(readers::assign_classes(raw, 0, "f").note,
            "labels mapped to classes 1..20 in sorted order: 0=1, 10=2, 20=3, 30=4, 40=5, 50=6, ..., 170=18, 180=19, "
            "190=20");
}

TEST_F(Libsvm, MalformedLinesAreRefusedWithFileAndLine) {
  EXPECT_EQ(refusal("1 1:1\nabc 1:1\n"), file() + ":2: expected a numeric label, got 'abc'");
  // Found by fuzzing: "+-2.80" passed the label check and then crashed the class mapping (std::stod threw).
  EXPECT_EQ(refusal("+-2.80 5:-0.21\n2 1:1\n"), file() + ":1: expected a numeric label, got '+-2.80'");
  EXPECT_EQ(refusal("1 1:+-1\n"), file() + ":1: expected a number after '1:', got '+-1'");
  EXPECT_EQ(refusal("1 1:1 2\n"), file() + ":1: expected 'index:value', got '2'");
  EXPECT_EQ(refusal("1 0:1\n"), file() + ":1: expected a feature index >= 1, got '0'");
  EXPECT_EQ(refusal("1 3:1 2:1\n"), file() + ":1: feature indices must increase, got 2 after 3");
  EXPECT_EQ(refusal("1 2:1 2:1\n"), file() + ":1: feature indices must increase, got 2 after 2");
  EXPECT_EQ(refusal("1 1:x\n"), file() + ":1: expected a number after '1:', got 'x'");
  EXPECT_EQ(refusal("1 1:nan\n"),
            file() + ":1: feature 1 is not finite ('nan'; the source's non_finite parameter can read it as 0)");
  EXPECT_EQ(refusal("1 1:inf\n"),
            file() + ":1: feature 1 is not finite ('inf'; the source's non_finite parameter can read it as 0)");
  EXPECT_EQ(refusal("1,2 1:1\n"), file() + ":1: multi-label lines ('1,2') are not supported");
  EXPECT_EQ(refusal("1 5:1\n", {{"num_features", "4"}}), file() + ":1: feature index 5 outside 1..4 (num_features)");
  EXPECT_EQ(refusal("# only a comment\n\n"), file() + ": no data rows");
  EXPECT_EQ(error_of([&] {
              auto source = make<DataSource>("libsvm", {{"path", (dir.path() / "missing.txt").string()}});
              source->load();
            }),
            (dir.path() / "missing.txt").string() + ": cannot open the data file");
}

// The text readers take a file in chunks of 1 MiB (readers::for_each_file_line): rows across chunk boundaries,
// a "\r\n" cut between two chunks and a last line without an end of line read as they would whole, plain or
// gzipped, and errors past the first chunk still name their line.
TEST_F(Libsvm, LinesAcrossReadChunksReadWhole) {
  constexpr std::size_t chunk = 1 << 20;
  std::string text;
  std::int64_t rows = 0;
  while (text.size() < 3 * chunk) {
    std::string line = std::to_string(rows % 3 + 1);
    line.append(" 1:").append(std::to_string(rows));
    for (std::int64_t j = 2; j <= 2 + rows % 40; ++j) line.append(" ").append(std::to_string(j)).append(":0.5");
    if (text.size() < chunk && text.size() + line.size() + 200 > chunk) {
      line.append(" #");  // pad with a comment so this line's '\r' is the first chunk's last byte
      line.append(chunk - 1 - text.size() - line.size(), 'x');
      text.append(line).append("\r\n");
    } else {
      text.append(line).append(rows % 5 == 0 ? "\r\n" : "\n");
    }
    ++rows;
  }
  ASSERT_EQ(text.find("\r\n", chunk - 1 - 10), chunk - 1);
  text.append("2 1:").append(std::to_string(rows++)).append(" 7:1");  // no end of line
  const auto check = [&](const Dataset& d) {
    ASSERT_EQ(d.size(), rows);
    for (std::int64_t i = 0; i < rows; ++i) {
      const Instance x = d.row(i);
      ASSERT_EQ(x.values[0], static_cast<Feature>(i)) << "row " << i;
      ASSERT_EQ(d.class_names[static_cast<std::size_t>(d.label(i))], std::to_string(i == rows - 1 ? 2 : i % 3 + 1));
    }
    EXPECT_EQ(d.row(rows - 1).nnz, 2);
  };
  check(load(text, {{"layout", "sparse"}}));
  {
    gzFile out = gzopen((dir.path() / "d.txt.gz").c_str(), "wb");
    ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
  }
  check(make<DataSource>("libsvm", {{"path", (dir.path() / "d.txt.gz").string()}, {"layout", "sparse"}})->load());
  // A gzip file cut short is a read error naming the file, not a silently shorter dataset.
  std::string compressed;
  {
    std::ifstream gz(dir.path() / "d.txt.gz", std::ios::binary);
    compressed.assign(std::istreambuf_iterator<char>(gz), {});
  }
  { std::ofstream(dir.path() / "cut.gz", std::ios::binary) << compressed.substr(0, compressed.size() / 2); }
  const std::string cut_file = (dir.path() / "cut.gz").string();
  EXPECT_EQ(error_of([&] {
              make<DataSource>("libsvm", {{"path", cut_file}})->load();
            }),
            cut_file + ": cannot read the data file (unexpected end of file)");
  // A bad token on the line that runs across the second chunk boundary.
  const std::size_t cut = text.rfind('\n', 2 * chunk) + 1;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(cut), '\n') + 1;
  std::string bad = text;
  bad.insert(cut, "1 1:oops ");
  EXPECT_EQ(refusal(bad), file() + ":" + std::to_string(line) + ": expected a number after '1:', got 'oops'");
}

}  // namespace
}  // namespace glimpse::testing
