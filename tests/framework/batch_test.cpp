// Batch protocols: the split, shared per-split objects, and batch sweeps (cross-validation, determinism,
// validation).
#include "batch.hpp"

#include <array>
#include <atomic>
#include <thread>

#include "hdf5.hpp"
#include "summary.hpp"
#include "summary_print.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(BatchSplit, StratifiedDisjointAndTheSameForTheSameKey) {
  // 3 classes of 100, 60 and 40 rows.
  std::vector<std::int32_t> labels;
  for (int c = 0; c < 3; ++c) labels.insert(labels.end(), std::array{100, 60, 40}[c], c);
  std::vector<Feature> values(labels.size(), 1.0f);
  const Dataset data = Dataset::dense(static_cast<std::int64_t>(labels.size()), 1, values, labels, 3);
  const BatchSplit split{0.3, 0.5, 5};
  const BatchSplitRows a = make_batch_split(data, split, 11), b = make_batch_split(data, split, 11);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.labelled, b.labelled);
  EXPECT_EQ(a.fold, b.fold);
  EXPECT_NE(a.test, make_batch_split(data, split, 12).test);
  // Test: round(0.3 n_k) of each class; labelled: round(0.5 of each class's training rows).
  std::array<int, 3> test_per_class{}, labelled_per_class{};
  for (const auto row : a.test) ++test_per_class[static_cast<std::size_t>(data.label(row))];
  for (std::size_t i = 0; i < a.labelled.size(); ++i) {
    EXPECT_EQ(a.labels[i], data.label(a.train[static_cast<std::size_t>(a.labelled[i])]));
    ++labelled_per_class[static_cast<std::size_t>(a.labels[i])];
  }
  EXPECT_EQ(test_per_class, (std::array<int, 3>{30, 18, 12}));
  EXPECT_EQ(labelled_per_class, (std::array<int, 3>{35, 21, 14}));
  EXPECT_EQ(a.train.size() + a.test.size(), labels.size());
  std::vector<std::int64_t> all = a.train;
  all.insert(all.end(), a.test.begin(), a.test.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  // Five folds of 14 labelled points each, every class spread evenly (35 = 7 x 5, 21, 14 off by one at most).
  std::array<int, 5> fold_sizes{};
  for (const auto f : a.fold) ++fold_sizes[static_cast<std::size_t>(f)];
  EXPECT_EQ(fold_sizes, (std::array<int, 5>{14, 14, 14, 14, 14}));
}

TEST(BatchSplit, ALargerLabelledRateKeepsTheTestRowsAndLabelsASuperset) {
  std::vector<std::int32_t> labels;
  for (int i = 0; i < 300; ++i) labels.push_back(i % 4);
  const std::vector<Feature> values(labels.size(), 1.0f);
  const Dataset data = Dataset::dense(300, 1, values, labels, 4);
  const BatchSplitRows low = make_batch_split(data, {0.3, 0.2, 0}, 5), high = make_batch_split(data, {0.3, 0.6, 0}, 5);
  EXPECT_EQ(low.test, high.test);
  EXPECT_TRUE(std::includes(high.labelled.begin(), high.labelled.end(), low.labelled.begin(), low.labelled.end()));
  EXPECT_GT(high.labelled.size(), 2 * low.labelled.size());
  // A protocol states the rate per dataset with "labelled".
  const Protocol protocol = parse_protocol(R"({"kind": "batch",
      "datasets": [{"source": "gaussians", "name": "g20", "labelled": 0.2}, {"source": "gaussians", "name": "g60"}],
      "learners": [{"name": "ps3vt"}], "metrics": [{"name": "test_error"}]})",
                                           "b.json", ".", registry());
  EXPECT_EQ(protocol.datasets[0].labelled, 0.2);
  EXPECT_FALSE(protocol.datasets[1].labelled.has_value());
  EXPECT_FALSE(protocol.selection.maximize);  // batch metrics are errors
}

TEST(SplitShared, BuildsEachObjectOnceForConcurrentRequests) {
  SplitShared shared;
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const void>> got(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      got[static_cast<std::size_t>(t)] = shared.get("graph", [&] {
        ++builds;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::shared_ptr<const void>(std::make_shared<int>(7));
      });
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(builds.load(), 1);
  for (const auto& g : got) EXPECT_EQ(g, got.front());
}

Protocol batch_protocol(const std::string& extra = "") {
  return parse_protocol(R"({"name": "b", "kind": "batch", "split": {"test": 0.3, "labelled": 0.4, "folds": 3},
      "datasets": [{"source": "gaussians", "params": {"n_per_class": 60, "sigma": 0.3}}],
      "learners": [{"name": "ps3vt", "grid": {"tau_S": [0, 0.01]}, "params": {"iterations": 400}},
                   {"name": "ps3vt", "as": "ps3vt_again", "grid": {"tau_S": [0, 0.01]},
                    "params": {"iterations": 400}},
                   {"name": "perceptron"}],
      "metrics": [{"name": "test_error"}], "seeds": 3, "passes": 3, "test_every": 100)" +
                            extra + "}",
                        "b.json", ".", registry());
}

TEST(BatchSweep, CrossValidatesChoosesPerSeedAndIsIdenticalAcrossThreadCounts) {
  TempDir dir;
  const Protocol protocol = batch_protocol();
  EXPECT_EQ(protocol.selection.metric, "cv_error");
  EXPECT_TRUE(protocol.selection.per_seed);
  sweep_quietly(protocol, dir.path() / "one.h5", 1);
  sweep_quietly(protocol, dir.path() / "two.h5", 2);
  const h5::Handle one = h5::open_file(dir.path() / "one.h5", false), two = h5::open_file(dir.path() / "two.h5", false);
  const auto runs = read_run_summaries(one), again = read_run_summaries(two);
  ASSERT_EQ(runs.size(), 15u);  // (2 + 2 + 1 grid points) x 3 seeds
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ASSERT_EQ(runs[i].metrics, again[i].metrics) << runs[i].id;
    ASSERT_EQ(runs[i].metrics.size(), 2u);
    EXPECT_EQ(runs[i].metrics[0].name, "cv_error");
    EXPECT_EQ(runs[i].metrics[1].name, "test_error");
    // 72 test rows of 240 (30% of 60 per class, 4 classes): the error is a multiple of 1/72.
    const double wrong = runs[i].metrics[1].value * 72;
    EXPECT_NEAR(wrong, std::round(wrong), 1e-9);
    EXPECT_LT(runs[i].metrics[1].value, 0.5);
  }
  // The same learner under two labels sees the same splits and seeds its fit the same way: identical results.
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(runs[i].metrics, runs[6 + i].metrics);
  // The objective curve and the test-error curve share the checkpoints (every 100 iterations).
  const h5::Handle curves = h5::open_group(one, "runs/" + runs[0].id + "/curves");
  EXPECT_EQ(h5::read_vector<std::int64_t>(h5::open_group(curves, "objective"), "round"),
            (std::vector<std::int64_t>{100, 200, 300, 400}));
  EXPECT_EQ(h5::read_vector<std::int64_t>(h5::open_group(curves, "test_error"), "round"),
            (std::vector<std::int64_t>{100, 200, 300, 400}));
  // Per-seed selection: each row averages, per seed, the run of least cv_error.
  const auto rows = summarize(runs, "cv_error", false, false, true);
  ASSERT_EQ(rows.size(), 3u);
  double expected = 0;
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    const RunSummary& a = runs[seed];
    const RunSummary& b = runs[3 + seed];
    expected += (b.metrics[0].value < a.metrics[0].value ? b : a).metrics[1].value / 3;
  }
  EXPECT_NEAR(rows[0].means[1], expected, 1e-12);
}

TEST(BatchSweep, ProtocolsAreCheckedForWhatBatchAndOnlineEachNeed) {
  EXPECT_EQ(error_of([] { batch_protocol(R"(, "oracle": {"name": "full"})"); }),
            "b.json: oracle: a batch protocol has no oracle: the labelled rows of its \"split\" keep their labels");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"kind": "batch", "split": {"test": 1.2},
                  "datasets": [{"source": "gaussians"}], "learners": [{"name": "ps3vt"}],
                  "metrics": [{"name": "test_error"}]})",
                             "b.json", ".", registry());
            }),
            "b.json: split.test: expected a fraction in (0, 1), got '1.2'");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"datasets": [{"source": "gaussians"}], "oracle": {"name": "full"},
                  "learners": [{"name": "ps3vt"}], "metrics": [{"name": "test_error"}]})",
                             "o.json", ".", registry());
            }),
            "o.json: learners[0].name: learner 'ps3vt' is fitted in batch protocols only (\"kind\": \"batch\"); it "
            "does not learn online");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"kind": "batch", "datasets": [{"source": "gaussians"}],
                  "learners": [{"name": "cspa"}], "metrics": [{"name": "test_error"}]})",
                             "b.json", ".", registry());
            }),
            "b.json: learners[0].name: learner 'cspa' can be fitted neither in batch nor by passes over labelled "
            "rows (it does not accept label feedback)");
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"datasets": [{"source": "gaussians"}], "oracle": {"name": "full"},
                  "learners": [{"name": "perceptron"}], "metrics": [{"name": "test_error"}], "split": {}})",
                             "o.json", ".", registry());
            }),
            "o.json: split: only batch protocols (\"kind\": \"batch\") split their datasets");
}

}  // namespace
}  // namespace glimpse::test
