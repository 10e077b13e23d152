// The installed datasets as a data source: what it loads and what keys the prepared cache (what a protocol's
// {"name": X} entries become is tested through the core in tests/framework/dataset_cache_test.cpp).
#include <glimpse/dataset_file.hpp>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
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

}  // namespace
}  // namespace glimpse::testing
