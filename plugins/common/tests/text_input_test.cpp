// The text readers' parallel line parsing (readers::parse_lines_in_parallel): whatever the cuts into blocks and
// pieces, plain or gzipped, the lines, their numbers and the first error are those of a single pass
// (readers::for_each_file_line); and the VW reader numbers its columns as a single pass would.
#include <zlib.h>

#include <bit>
#include <charconv>
#include <glimpse/readers/text_input.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

using Lines = std::vector<std::pair<std::int64_t, std::string>>;

Lines serial_lines(const std::filesystem::path& file) {
  Lines lines;
  readers::for_each_file_line(file, [&](std::int64_t n, std::string_view line) { lines.emplace_back(n, line); });
  return lines;
}

Lines parallel_lines(const std::filesystem::path& file, const readers::TextCuts& cuts) {
  auto pieces = readers::parse_lines_in_parallel<Lines>(
      file, [](Lines& part, std::int64_t n, std::string_view line) { part.emplace_back(n, line); }, cuts);
  Lines lines;
  for (const auto& piece : pieces)
    for (const auto& [n, line] : piece.part) lines.emplace_back(piece.lines_before + n, line);
  return lines;
}

void write_gzip(const std::filesystem::path& file, const std::string& text) {
  gzFile out = gzopen(file.c_str(), "wb");
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(out);
}

// Lines of random lengths (empty ones too), "\n" or "\r\n", with and without a last end of line.
std::string random_text(Rng& rng, bool final_newline) {
  std::string text;
  const auto lines = 1 + rng.below(60);
  for (std::uint64_t i = 0; i < lines; ++i) {
    const auto length = rng.below(5) == 0 ? 0 : rng.below(30);
    for (std::uint64_t c = 0; c < length; ++c) text += static_cast<char>('a' + rng.below(26));
    if (i + 1 < lines || final_newline) text += rng.below(3) == 0 ? "\r\n" : "\n";
  }
  return text;
}

TEST(ParseLinesInParallel, GivesTheLinesOfASinglePassWhateverTheCuts) {
  TempDir dir;
  Rng rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const std::string text = random_text(rng, trial % 2 == 0);
    { std::ofstream(dir.path() / "plain.txt", std::ios::binary) << text; }
    write_gzip(dir.path() / "packed.txt.gz", text);
    const Lines expected = serial_lines(dir.path() / "plain.txt");
    for (const std::size_t piece : {1, 2, 7, 64, 1 << 20})
      for (const std::size_t block : {1, 5, 33, 1 << 20}) {
        const readers::TextCuts cuts{.block_bytes = block, .piece_bytes = piece};
        SCOPED_TRACE("trial " + std::to_string(trial) + ", piece " + std::to_string(piece) + ", block " +
                     std::to_string(block));
        EXPECT_EQ(parallel_lines(dir.path() / "plain.txt", cuts), expected);
        EXPECT_EQ(parallel_lines(dir.path() / "packed.txt.gz", cuts), expected);
        // Skipped lines (a header read beforehand) are counted but not parsed.
        const std::int64_t skip = 1 + trial % 3;
        Lines rest;
        for (const auto& [n, line] : expected)
          if (n > skip) rest.emplace_back(n, line);
        readers::TextCuts skipping = cuts;
        skipping.skip_lines = skip;
        EXPECT_EQ(parallel_lines(dir.path() / "plain.txt", skipping), rest);
        EXPECT_EQ(parallel_lines(dir.path() / "packed.txt.gz", skipping), rest);
      }
  }
  // An empty file has no lines.
  { std::ofstream(dir.path() / "empty.txt") << ""; }
  EXPECT_TRUE(parallel_lines(dir.path() / "empty.txt", {}).empty());
}

// The error reported is the file's first, with its line number, even when a later piece (parsed at the same time)
// fails as well.
TEST(ParseLinesInParallel, ReportsTheFirstProblemInTheFileWithItsLine) {
  TempDir dir;
  std::string text;
  for (int i = 1; i <= 200; ++i) text += (i == 57 || i == 150 ? "bad " : "ok ") + std::to_string(i) + "\n";
  { std::ofstream(dir.path() / "d.txt") << text; }
  write_gzip(dir.path() / "d.txt.gz", text);
  for (const auto* name : {"d.txt", "d.txt.gz"})
    for (const std::size_t piece : {1, 16, 1000, 1 << 20}) {
      const auto file = dir.path() / name;
      EXPECT_EQ(error_of([&] {
                  readers::parse_lines_in_parallel<int>(
                      file,
                      [](int&, std::int64_t, std::string_view line) {
                        if (line.starts_with("bad")) throw readers::LineProblem{"found '" + std::string(line) + "'"};
                      },
                      {.block_bytes = 100, .piece_bytes = piece});
                }),
                file.string() + ":57: found 'bad 57'")
          << name << ", piece " << piece;
    }
}

// A VW file of several pieces (each about 4 MB) in which later pieces meet columns in another order than earlier
// ones, repeat features and bring new ones: columns are numbered in order of first appearance in the file, rows
// sorted by column, repeats summed, as a single pass does (computed here independently).
TEST(ParseLinesInParallel, VwColumnsAreNumberedAsInOnePass) {
  TempDir dir;
  Rng rng(11);
  std::string text;
  std::map<std::string, std::int32_t> column_of;
  std::vector<std::map<std::int32_t, double>> expected_rows;
  while (text.size() < 10'000'000) {
    const auto row = static_cast<std::int64_t>(expected_rows.size());
    std::map<std::int32_t, double> expected;
    std::string line = std::to_string(1 + row % 3) + " |";
    const auto features = 3 + rng.below(20);
    const auto vocabulary = 40 + row / 2000;  // new names keep appearing
    for (std::uint64_t j = 0; j < features; ++j) {
      const auto id = rng.below(vocabulary);
      std::string name = "f";
      name += std::to_string(row % 2 ? vocabulary - 1 - id : id);  // orders vary by row
      const double value = static_cast<double>(1 + rng.below(8)) / 4;
      line += " " + name + ":" + readers::format_number(value);
      const auto [it, added] =
          column_of.emplace(std::string(" ^").append(name), static_cast<std::int32_t>(column_of.size()));
      expected[it->second] += value;  // repeats summed (exact: quarters)
    }
    text += line + "\n";
    expected_rows.push_back(std::move(expected));
  }
  { std::ofstream(dir.path() / "d.vw") << text; }
  const Dataset d = make<DataSource>("vw", {{"path", (dir.path() / "d.vw").string()}, {"layout", "sparse"}})->load();
  ASSERT_EQ(d.size(), static_cast<std::int64_t>(expected_rows.size()));
  ASSERT_EQ(d.dim(), static_cast<std::int32_t>(column_of.size()));
  for (std::int64_t i = 0; i < d.size(); ++i) {
    const Instance x = d.row(i);
    std::map<std::int32_t, double> got;
    for (std::int32_t e = 0; e < x.nnz; ++e) {
      if (e > 0) {
        ASSERT_LT(x.indices[e - 1], x.indices[e]) << "row " << i;
      }
      got[x.indices[e]] = x.values[e];
    }
    ASSERT_EQ(got, expected_rows[static_cast<std::size_t>(i)]) << "row " << i;
  }
}

}  // namespace
}  // namespace glimpse::testing

namespace glimpse::testing {
namespace {

// readers::parse_number_prefix reads plain decimals itself (Clinger's fast path) and leaves the rest to
// std::from_chars: on every text, the same value to the bit and the same end as from_chars alone.
TEST(ParseNumberPrefix, AgreesWithFromCharsToTheBit) {
  Rng rng(7);
  const std::string alphabet = "0123456789";
  const std::vector<std::string> tails = {"", " ", ":", "e5", "E-3", "e", ".", "x", "#", "\t", "5"};
  for (int trial = 0; trial < 200000; ++trial) {
    std::string text;
    if (rng.below(4) == 0) text += '-';
    const auto whole = rng.below(5) == 0 ? rng.below(25) : rng.below(4);
    for (std::uint64_t i = 0; i < whole; ++i) text += alphabet[rng.below(rng.below(3) == 0 ? 1 : 10)];
    if (rng.below(3) != 0) {
      text += '.';
      const auto fraction = rng.below(3) == 0 ? rng.below(30) : rng.below(12);
      for (std::uint64_t i = 0; i < fraction; ++i) text += alphabet[rng.below(10)];
    }
    text += tails[rng.below(tails.size())];
    double expected = -1, got = -1;
    const auto [expected_end, error] = std::from_chars(text.data(), text.data() + text.size(), expected);
    const char* end = readers::parse_number_prefix(text.data(), text.data() + text.size(), got);
    if (error != std::errc()) {
      ASSERT_EQ(end, nullptr) << "'" << text << "'";
      continue;
    }
    ASSERT_EQ(end, expected_end) << "'" << text << "'";
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected)) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace glimpse::testing
