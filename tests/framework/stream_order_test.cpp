// Stream orders: every mode is a deterministic function of the key and pass, visits what it promises and
// nothing else.
#include <algorithm>
#include <map>

#include "hdf5.hpp"
#include "orchestrator.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

// 3 classes with 5, 3 and 2 rows, mixed.
const std::vector<std::int32_t> labels{0, 1, 0, 2, 0, 1, 0, 2, 1, 0};

std::vector<std::int64_t> order_of(StreamOrder mode, std::uint64_t key = 11, std::int64_t pass = 0) {
  std::vector<std::int64_t> order(labels.size());
  fill_stream_order(order, key, pass, mode, labels, 3);
  return order;
}

std::vector<std::int32_t> classes_of(const std::vector<std::int64_t>& order) {
  std::vector<std::int32_t> classes;
  for (auto row : order) classes.push_back(labels[static_cast<std::size_t>(row)]);
  return classes;
}

bool is_permutation_of_rows(std::vector<std::int64_t> order) {
  std::sort(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

TEST(StreamOrder, FileShuffleByClassAndInterleavedArePermutationsOfTheRows) {
  EXPECT_EQ(order_of(StreamOrder::file), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  for (auto mode : {StreamOrder::shuffle, StreamOrder::by_class, StreamOrder::interleaved}) {
    EXPECT_TRUE(is_permutation_of_rows(order_of(mode)));
    EXPECT_EQ(order_of(mode, 11, 0), order_of(mode, 11, 0));  // deterministic
    EXPECT_NE(order_of(mode, 11, 0), order_of(mode, 11, 1));  // reshuffled per pass
  }
  EXPECT_EQ(classes_of(order_of(StreamOrder::by_class)), (std::vector<std::int32_t>{0, 0, 0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(classes_of(order_of(StreamOrder::interleaved)), (std::vector<std::int32_t>{0, 1, 2, 0, 1, 2, 0, 1, 0, 0}));
  // Within a class, the class-wise modes keep the shuffled order's sequence.
  const auto shuffled = order_of(StreamOrder::shuffle), grouped = order_of(StreamOrder::by_class);
  std::vector<std::int64_t> class0;
  for (auto row : shuffled)
    if (labels[static_cast<std::size_t>(row)] == 0) class0.push_back(row);
  EXPECT_EQ(std::vector<std::int64_t>(grouped.begin(), grouped.begin() + 5), class0);
}

TEST(StreamOrder, ClassBalancedDrawsClassesUniformly) {
  std::map<std::int32_t, int> counts;
  for (std::int64_t pass = 0; pass < 3000; ++pass)
    for (auto c : classes_of(order_of(StreamOrder::class_balanced, 5, pass))) ++counts[c];
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(counts[c] / 30000.0, 1.0 / 3, 0.01) << "class " << c;
}

TEST(StreamOrder, ProtocolsNameTheModesAndRefuseOthers) {
  const std::string base = R"({"datasets": [{"source": "gaussians"}], "oracle": {"name": "full"},
      "learners": [{"name": "perceptron"}], "metrics": [{"name": "online_accuracy"}], "order": ")";
  EXPECT_EQ(parse_protocol(base + "interleaved\"}", "o.json", ".", registry()).order, StreamOrder::interleaved);
  EXPECT_EQ(error_of([&] { parse_protocol(base + "sorted\"}", "o.json", ".", registry()); }),
            "o.json: order: expected shuffle, file, by_class, interleaved, class_balanced or with_replacement, "
            "got 'sorted'");
  EXPECT_EQ(parse_protocol(base + "with_replacement\", \"rounds\": 25}", "o.json", ".", registry()).rounds, 25);
  EXPECT_EQ(error_of([&] { parse_protocol(base + "shuffle\", \"rounds\": 25}", "o.json", ".", registry()); }),
            "o.json: rounds: only with \"order\": \"with_replacement\" (other orders visit each row once per pass)");
}

// The partial-label group's protocol: T rows drawn uniformly with replacement, T independent of n.
TEST(StreamOrder, WithReplacementDrawsRowsUniformlyForAnyPassLength) {
  std::vector<std::int64_t> order(25);
  fill_stream_order(order, 7, 0, StreamOrder::with_replacement, labels, 3);
  std::vector<std::int64_t> again(25);
  fill_stream_order(again, 7, 0, StreamOrder::with_replacement, labels, 3);
  EXPECT_EQ(order, again);
  EXPECT_TRUE(std::all_of(order.begin(), order.end(), [](auto row) { return row >= 0 && row < 10; }));
  std::sort(order.begin(), order.end());
  EXPECT_NE(std::adjacent_find(order.begin(), order.end()), order.end());  // 25 draws of 10 rows repeat some
  std::map<std::int64_t, int> counts;
  std::vector<std::int64_t> many(100000);
  fill_stream_order(many, 9, 3, StreamOrder::with_replacement, labels, 3);
  for (auto row : many) ++counts[row];
  for (std::int64_t row = 0; row < 10; ++row) EXPECT_NEAR(counts[row] / 100000.0, 0.1, 0.005) << "row " << row;
}

// A run of `rounds` rounds whatever the dataset's size; the trace's rows are the drawn ones.
TEST(StreamOrder, ARunWithReplacementHasTheProtocolsRoundCount) {
  TempDir dir;
  const Protocol p = parse_protocol(R"({"datasets": [{"source": "gaussians", "params": {"n_per_class": 5}}],
      "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}],
      "order": "with_replacement", "rounds": 333, "passes": 2, "seeds": [1]})",
                                    "r.json", ".", registry());
  sweep_quietly(p, dir.path() / "r.h5", 1);
  const h5::Handle file = h5::open_file(dir.path() / "r.h5", false);
  const auto rows = h5::read_vector<std::int64_t>(h5::open_group(file, "runs/000000/rounds"), "row");
  ASSERT_EQ(rows.size(), 666u);
  EXPECT_TRUE(std::all_of(rows.begin(), rows.end(), [](auto row) { return row >= 0 && row < 20; }));
}

}  // namespace
}  // namespace glimpse::test
