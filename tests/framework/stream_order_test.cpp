// Stream orders: every mode is a deterministic function of the key and pass, visits what it promises and
// nothing else.
#include <map>

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
            "o.json: order: expected one of shuffle, file, by_class, interleaved, class_balanced, got 'sorted'");
}

}  // namespace
}  // namespace glimpse::test
