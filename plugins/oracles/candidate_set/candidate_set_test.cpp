// candidate_set: sets hold the truth, have the requested size and are uniform; per-row sets; co-occurrence.
#include <algorithm>
#include <glimpse/testing_gtest.hpp>
#include <set>

namespace glimpse::testing {
namespace {

TEST(CandidateSetOracle, SetsHoldTheTruthHaveTheRequestedSizeAndAreUniform) {
  auto fixed = make<FeedbackOracle>("candidate_set", {{"size", "3"}});
  auto ranged = make<FeedbackOracle>("candidate_set", {{"size", "2"}, {"max_size", "4"}});
  fixed->reset({1, 1, 6});
  ranged->reset({1, 1, 6});
  const DenseRow x({1});
  Prediction pred;
  std::vector<int> joined(6, 0), sizes(5, 0);
  for (int t = 0; t < 30000; ++t) {
    Rng rng(derive_key(2, static_cast<std::uint64_t>(t)));
    const auto set = std::get<CandidateSetFeedback>(fixed->respond(x.view(), {t, 4, {}}, pred, rng)).labels;
    ASSERT_EQ(set.size(), 3u);
    ASSERT_EQ(set[0], 4);
    ASSERT_EQ(std::set<std::int32_t>(set.begin(), set.end()).size(), 3u);
    for (auto label : set) ++joined[label];
    Rng rng2(derive_key(3, static_cast<std::uint64_t>(t)));
    const auto other = std::get<CandidateSetFeedback>(ranged->respond(x.view(), {t, 0, {}}, pred, rng2)).labels;
    ++sizes[other.size()];
    ASSERT_EQ(std::count(other.begin(), other.end(), 0), 1);
  }
  for (int label : {0, 1, 2, 3, 5}) EXPECT_NEAR(joined[label] / 30000.0, 2.0 / 5, 0.012);  // 2 of the 5 others
  for (int s : {2, 3, 4}) EXPECT_NEAR(sizes[s] / 30000.0, 1.0 / 3, 0.012);
  Rng a(7), b(7);  // same stream, same set
  const auto first = std::get<CandidateSetFeedback>(fixed->respond(x.view(), {1, 2, {}}, pred, a)).labels;
  const std::vector<std::int32_t> kept(first.begin(), first.end());
  const auto second = std::get<CandidateSetFeedback>(fixed->respond(x.view(), {1, 2, {}}, pred, b)).labels;
  EXPECT_EQ(kept, std::vector<std::int32_t>(second.begin(), second.end()));
  EXPECT_EQ(error_of([&] {
              auto big = make<FeedbackOracle>("candidate_set", {{"size", "7"}});
              big->reset({1, 1, 6});
            }),
            "candidate set size 7 exceeds K = 6");
}

// A set as large as K holds every label: the oracle says so before any run (the host prints it as a note), and says
// nothing when its sets can exclude a label.
TEST(CandidateSetOracle, SaysWhenItsSetsCannotExcludeALabel) {
  const ProblemShape two_classes{10, 3, 2};
  EXPECT_EQ(make<FeedbackOracle>("candidate_set", {{"size", "2"}})->notes(two_classes),
            std::vector<std::string>{"sets of size 2 on K = 2 classes hold every label, so they carry no information "
                                     "about the true one"});
  const auto ranged = make<FeedbackOracle>("candidate_set", {{"size", "2"}, {"max_size", "4"}})->notes({10, 3, 4});
  ASSERT_EQ(ranged.size(), 1u);
  EXPECT_NE(ranged[0].find("the rounds drawing size 4 get every label"), std::string::npos) << ranged[0];
  EXPECT_TRUE(make<FeedbackOracle>("candidate_set", {{"size", "2"}})->notes({10, 3, 3}).empty());
}

// per_row: a row keeps the set of its first round for the whole run (the partial-label group's code), whatever
// later rounds' streams draw; other rows get their own; reset (a new run) draws afresh.
TEST(CandidateSetOracle, PerRowKeepsEachRowsFirstSetForTheRun) {
  auto oracle = make<FeedbackOracle>("candidate_set", {{"size", "3"}, {"per_row", "true"}});
  oracle->reset({4, 1, 6});
  const DenseRow x({1});
  Prediction pred;
  const auto respond = [&](std::int64_t round, std::int32_t label, std::int64_t row) {
    Rng rng(derive_key(5, static_cast<std::uint64_t>(round)));
    const auto set =
        std::get<CandidateSetFeedback>(oracle->respond(x.view(), {round, label, {}, row}, pred, rng)).labels;
    return std::vector<std::int32_t>(set.begin(), set.end());
  };
  const auto first = respond(1, 2, 3);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0], 2);
  bool another_row_differs = false;
  for (std::int64_t round = 2; round < 40; ++round) {
    EXPECT_EQ(respond(round, 2, 3), first) << "round " << round;  // the same row: the same set
    another_row_differs = another_row_differs || respond(round, 2, round % 3) != first;
  }
  EXPECT_TRUE(another_row_differs);
  bool fresh = false;  // a new run: row 3 draws again (from whatever stream its first round has)
  for (std::int64_t run = 0; run < 20 && !fresh; ++run) {
    oracle->reset({4, 1, 6});
    fresh = respond(100 + run, 2, 3) != first;
  }
  EXPECT_TRUE(fresh);
}

TEST(CandidateSetOracle, CooccurrenceMatrixGivesEachLabelItsOwnProbability) {
  TempDir dir;
  const auto file = dir.path() / "q.txt";
  // Class 0's set takes 1 always, 2 with probability 0.3; class 2's takes 0 with 0.5; class 1 stays alone.
  { std::ofstream(file) << "# co-occurrence\n0.9 1 0.3\n0,0,0\n\n0.5 0 1  # diagonal ignored\n"; }
  auto oracle = make<FeedbackOracle>("candidate_set", {{"cooccurrence", file.string()}});
  oracle->reset({1, 1, 3});
  const DenseRow x({1});
  Prediction pred;
  std::vector<std::vector<int>> joined(3, std::vector<int>(3, 0));
  const int rounds = 20000;
  for (int t = 0; t < rounds; ++t)
    for (std::int32_t y = 0; y < 3; ++y) {
      Rng rng(derive_key(5, static_cast<std::uint64_t>(3 * t + y)));
      const auto set = std::get<CandidateSetFeedback>(oracle->respond(x.view(), {t, y, {}}, pred, rng)).labels;
      ASSERT_EQ(set[0], y);
      ASSERT_EQ(std::count(set.begin(), set.end(), y), 1);
      for (auto label : set) ++joined[static_cast<std::size_t>(y)][static_cast<std::size_t>(label)];
    }
  EXPECT_EQ(joined[0][1], rounds);
  EXPECT_NEAR(joined[0][2] / double(rounds), 0.3, 0.012);
  EXPECT_EQ(joined[1][0] + joined[1][2], 0);
  EXPECT_NEAR(joined[2][0] / double(rounds), 0.5, 0.012);
  EXPECT_EQ(joined[2][1], 0);

  EXPECT_EQ(error_of([&] {
              oracle->reset({1, 1, 4});
            }),
            file.string() + ": is a 3 x 3 matrix; expected K x K = 4 x 4 (rows and columns are the classes in order)");
  const auto refusal = [&](const std::string& text) {
    { std::ofstream(file) << text; }
    return error_of([&] { make<FeedbackOracle>("candidate_set", {{"cooccurrence", file.string()}}); });
  };
  const std::string at = "oracle 'candidate_set': " + file.string();
  EXPECT_EQ(refusal("0 1\n0.5 1.5\n"), at + ":2: entry 2 is 1.5; expected a probability in [0, 1]");
  EXPECT_EQ(refusal("0 1\n0.5\n"), at + ":2: row has 1 entries; the first row has 2");
  EXPECT_EQ(refusal("0 x\n"), at + ":1: expected a number, got 'x'");
  EXPECT_EQ(refusal("0 nan\n"), at + ":1: expected a number, got 'nan'");
  EXPECT_EQ(refusal("# empty\n"), at + ": no matrix rows");
}

}  // namespace
}  // namespace glimpse::testing
