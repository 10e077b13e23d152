// Transforms with fitted statistics learn them on training rows only (issue 29).
#include <array>
#include <glimpse/split.hpp>

#include "batch.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

// Transforms with fitted statistics in batch protocols (#29): standardize and minmax_scale learn from the seed's
// training rows only, so rewriting the test rows (here: x 1000 + 50) leaves every training row's value unchanged;
// fitted on the labelled rows, the unlabelled ones may change too; fitted on all rows, the training rows move.
TEST(FittedTransforms, ChangingOnlyHeldOutRowsLeavesEveryTrainingStatisticUnchanged) {
  TempDir dir;
  Rng rng(21);
  std::vector<std::array<double, 3>> rows(90);
  for (auto& row : rows)
    for (auto& v : row) v = rng.normal() * 3 + 1;
  const auto write = [&](const std::string& name, const std::vector<bool>& rewritten) {
    std::ofstream out(dir.path() / name);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (const double v : rows[i]) out << (rewritten[i] ? v * 1000 + 50 : v) << ",";
      out << i % 3 + 1 << "\n";
    }
  };
  const auto protocol = [&](const std::string& file, const std::string& fit_on) {
    return parse_protocol(R"({"kind": "batch", "split": {"test": 0.3, "labelled": 0.3, "fit_transforms_on": ")" +
                              fit_on + R"("}, "datasets": [{"source": "csv", "params": {"path": ")" +
                              (dir.path() / file).string() +
                              R"("}, "transforms": [{"name": "standardize"}, {"name": "minmax_scale"}]}],
        "learners": [{"name": "perceptron"}], "metrics": [{"name": "test_error"}], "seeds": [4]})",
                          "f.json", ".", registry());
  };
  write("original.csv", std::vector<bool>(rows.size(), false));
  const Protocol original = protocol("original.csv", "training");
  const auto prepared = prepare_datasets(original);
  ASSERT_TRUE(prepared[0].per_seed());  // each seed fits on its own split
  const auto before = prepared[0].materialize(4);
  const BatchSplitRows split = make_batch_split(*before, split_rule(original, original.datasets[0]),
                                                split_key(4, original.datasets[0].split_name));
  std::vector<bool> test(rows.size(), false), unlabelled(rows.size(), false), labelled(rows.size(), false);
  for (const std::int64_t row : split.test) test[static_cast<std::size_t>(row)] = true;
  for (std::size_t i = 0; i < split.train.size(); ++i) unlabelled[static_cast<std::size_t>(split.train[i])] = true;
  for (const std::int64_t i : split.labelled) {
    unlabelled[static_cast<std::size_t>(split.train[static_cast<std::size_t>(i)])] = false;
    labelled[static_cast<std::size_t>(split.train[static_cast<std::size_t>(i)])] = true;
  }
  // The training rows span exactly [-1, 1] per feature: the extremes were fitted on them.
  for (std::int32_t j = 0; j < 3; ++j) {
    float low = 2, high = -2;
    for (const std::int64_t row : split.train)
      low = std::min(low, before->row(row).values[j]), high = std::max(high, before->row(row).values[j]);
    EXPECT_FLOAT_EQ(low, -1.0f);
    EXPECT_FLOAT_EQ(high, 1.0f);
  }
  const auto changed_rows = [&](const std::string& fit_on, const std::vector<bool>& rewritten) {
    const std::string name = fit_on + ".csv";
    write(name, rewritten);
    const auto after = prepare_datasets(protocol(name, fit_on))[0].materialize(4);
    const auto reference = prepare_datasets(protocol("original.csv", fit_on))[0].materialize(4);
    std::vector<bool> changed(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::int32_t j = 0; j < 3; ++j)
        changed[i] = changed[i] || after->row(static_cast<std::int64_t>(i)).values[j] !=
                                       reference->row(static_cast<std::int64_t>(i)).values[j];
    return changed;
  };
  EXPECT_EQ(changed_rows("training", test), test);  // only the rewritten rows differ
  std::vector<bool> held_out = test;
  for (std::size_t i = 0; i < rows.size(); ++i) held_out[i] = test[i] || unlabelled[i];
  EXPECT_EQ(changed_rows("labelled", held_out), held_out);
  const std::vector<bool> all = changed_rows("all", test);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_TRUE(all[i]) << "row " << i;  // fitted on every row
}

}  // namespace
}  // namespace glimpse::test
