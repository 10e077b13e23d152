// The installed datasets as a data source: what {"name": X} in a protocol loads, and what keys the prepared cache.
#include "glimpse/dataset_file.hpp"
#include "orchestrator.hpp"
#include "prepared_cache.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

using Installed = InFreshDatasetCache;

TEST_F(Installed, LoadsTheFileMapsItsRowsAndIsKeyedByItsContents) {
  const Dataset original = Dataset::dense(3, 2, {1, 2, 3, 4, 5, 6}, {0, 2, 1}, 3);
  write_dataset_file(cached_dataset_file("small"), original, {});
  const auto source = make<DataSource>("installed", {{"dataset", "small"}});
  const Dataset loaded = source->load();
  ASSERT_EQ(loaded.size(), 3);
  EXPECT_EQ(loaded.label(1), 2);
  EXPECT_EQ(loaded.row(2).values[1], 6.0f);
  EXPECT_TRUE(source->loads_prepared_file());
  const std::string before = source->identity();
  EXPECT_NE(before.find(cached_dataset_file("small").string() + " size "), std::string::npos) << before;
  write_dataset_file(cached_dataset_file("small"), Dataset::dense(1, 2, {1, 2}, {0}, 2), {});
  EXPECT_NE(source->identity(), before);
}

TEST_F(Installed, ServesTheProtocolsEntriesWrittenByNameAndSaysHowToInstallAMissingOne) {
  write_dataset_file(cached_dataset_file("small"), Dataset::dense(4, 1, {1, 2, 3, 4}, {0, 1, 0, 1}, 2), {});
  const Protocol protocol = parse_protocol(R"({"datasets": [{"name": "small"}, {"dataset": "small", "name": "again"}],
    "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}]})",
                                           "p.json", dir.path(), registry());
  ASSERT_EQ(protocol.datasets.size(), 2u);
  for (const auto& use : protocol.datasets) {
    EXPECT_EQ(use.source.name(), "installed");
    EXPECT_EQ(use.source.resolve(0, nullptr).text("dataset"), "small");
    EXPECT_EQ(use.split_name, "small");  // both entries draw the same batch split
  }
  EXPECT_EQ(protocol.datasets[1].name, "again");
  EXPECT_EQ(prepare_datasets(protocol)[1].shared->size(), 4);

  const Protocol missing = parse_protocol(R"({"datasets": [{"name": "vehicle"}], "oracle": {"name": "full"},
    "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}]})",
                                          "p.json", dir.path(), registry());
  const std::string message = error_of([&] { prepare_datasets(missing); });
  EXPECT_EQ(message.rfind("p.json: datasets[0] (source 'installed'): dataset 'vehicle' is not installed (no ", 0), 0u)
      << message;
  EXPECT_NE(message.find("'glimpse datasets list' shows the catalog"), std::string::npos) << message;
  // A typo of an installed name is named as one, not offered for installing.
  const Protocol typo = parse_protocol(R"({"datasets": [{"name": "smal"}], "oracle": {"name": "full"},
    "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}]})",
                                       "p.json", dir.path(), registry());
  EXPECT_EQ(error_of([&] { prepare_datasets(typo); }),
            "p.json: datasets[0] (source 'installed'): dataset 'smal' is not installed; did you mean 'small' "
            "(installed)?");
}

// Untransformed, an installed dataset is mapped where it lies, never copied into the prepared cache; transformed, it
// is kept, and a reinstalled file (its identity) prepares afresh.
TEST_F(Installed, ThePreparedCacheKeepsItOnlyTransformedAndMissesAfterAReinstall) {
  ::setenv("GLIMPSE_PREPARED_CACHE", "always", 1);
  DiskPreparationCache cache;
  const auto entries = [&] {
    const auto folder = dir.path() / "cache" / "prepared";
    return std::filesystem::exists(folder) ? std::distance(std::filesystem::directory_iterator(folder), {}) : 0;
  };
  const auto first_value = [&](const std::string& transforms) {
    const Protocol p = parse_protocol(R"({"datasets": [{"name": "small")" + transforms + R"(}],
      "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}]})",
                                      "p.json", dir.path(), registry());
    return prepare_datasets(p, &cache).at(0).shared->row(0).values[0];
  };
  const std::string scale = R"(, "transforms": [{"name": "minmax_scale", "params": {"lower": 0, "upper": 2}}])";
  write_dataset_file(cached_dataset_file("small"), Dataset::dense(2, 1, {1, 3}, {0, 1}, 2), {});
  EXPECT_EQ(first_value(""), 1.0f);
  EXPECT_EQ(entries(), 0);
  EXPECT_EQ(first_value(scale), 0.0f);
  EXPECT_EQ(entries(), 1);
  EXPECT_EQ(first_value(scale), 0.0f);  // kept
  EXPECT_EQ(entries(), 1);
  // Another size too, so the identity differs even where file times are coarse.
  write_dataset_file(cached_dataset_file("small"), Dataset::dense(3, 1, {5, 3, 4}, {0, 1, 0}, 2), {});
  EXPECT_EQ(first_value(scale), 2.0f);  // the new file's rows, scaled
  EXPECT_EQ(entries(), 2);
  ::unsetenv("GLIMPSE_PREPARED_CACHE");
}

}  // namespace
}  // namespace glimpse::test
