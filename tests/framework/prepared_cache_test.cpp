// Prepared datasets cached on disk (the CLI's DiskPreparationCache, prepared_cache.hpp): a second preparation of the
// same entry reads the kept result instead of parsing and transforming, gives the same dataset (rows, labels, class
// names, notes), and any change to what made it (the data file's size or time, a transform's parameters) prepares
// afresh.
#include "prepared_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "installed_datasets.hpp"
#include "orchestrator.hpp"
#include "plugin_registry.hpp"
#include "prepared_dataset.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

class PreparedCache : public InFreshDatasetCache {
 protected:
  void SetUp() override {
    InFreshDatasetCache::SetUp();
    ::setenv("GLIMPSE_PREPARED_CACHE", "always", 1);
  }
  void TearDown() override {
    InFreshDatasetCache::TearDown();
    ::unsetenv("GLIMPSE_PREPARED_CACHE");
  }
  std::filesystem::path data_file() const { return dir.path() / "d.txt"; }
  // Labels 5 and 7 become classes 1 and 2, which the reader notes.
  void write_data(const std::string& first_value) {
    std::ofstream(data_file()) << "5 1:" << first_value << " 3:2\n7 2:1\n5 1:1 2:1 3:1\n";
  }
  // d.txt, min-max scaled with `scale` as the upper bound.
  Protocol protocol(const std::string& scale = "1") const {
    return parse_protocol(R"({"datasets": [{"name": "d", "source": "libsvm", "params": {"path": "d.txt"},
        "transforms": [{"name": "minmax_scale", "params": {"upper": )" +
                              scale + R"(}}]}],
        "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}]})",
                          "p.json", dir.path(), registry());
  }
  Dataset prepare(const std::string& scale = "1") { return *prepare_datasets(protocol(scale), &cache).at(0).shared; }
  std::size_t entries() const {
    const auto folder = dir.path() / "cache" / "prepared";
    if (!std::filesystem::exists(folder)) return 0;
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(folder), {}));
  }
  // The file's modification time, to put back after rewriting it.
  timespec modified() const {
    struct stat info {};
    ::stat(data_file().c_str(), &info);
    return info.st_mtim;
  }
  void set_modified(timespec when) const {
    const timespec times[2] = {when, when};
    ::utimensat(AT_FDCWD, data_file().c_str(), times, 0);
  }
  DiskPreparationCache cache;
};

TEST_F(PreparedCache, ASecondPreparationReadsTheKeptResultUntilWhatMadeItChanges) {
  write_data("4");
  ::setenv("GLIMPSE_PREPARED_CACHE", "off", 1);
  const Dataset fresh = prepare();
  EXPECT_EQ(entries(), 0u);
  ::setenv("GLIMPSE_PREPARED_CACHE", "always", 1);
  const Dataset first = prepare();
  EXPECT_EQ(entries(), 1u);
  const Dataset kept = prepare();
  for (const Dataset* d : {&first, &kept}) {
    EXPECT_EQ(dataset_checksum(*d), dataset_checksum(fresh));
    EXPECT_EQ(d->class_names, fresh.class_names);
    EXPECT_EQ(d->notes, fresh.notes);
    EXPECT_EQ(d->is_dense(), fresh.is_dense());
  }
  ASSERT_FALSE(fresh.notes.empty());  // the reader's note on how labels became classes survives the cache
  EXPECT_EQ(entries(), 1u);

  // The same size and time with other contents: the kept result is read, so the file was not parsed again.
  const timespec when = modified();
  write_data("8");
  set_modified(when);
  EXPECT_EQ(dataset_checksum(prepare()), dataset_checksum(fresh));
  // A new time: prepared afresh from the new contents, and kept beside the old entry.
  set_modified({when.tv_sec + 5, when.tv_nsec});
  const Dataset changed = prepare();
  EXPECT_NE(dataset_checksum(changed), dataset_checksum(fresh));
  EXPECT_EQ(entries(), 2u);
  ::setenv("GLIMPSE_PREPARED_CACHE", "off", 1);
  EXPECT_EQ(dataset_checksum(prepare()), dataset_checksum(changed));
  ::setenv("GLIMPSE_PREPARED_CACHE", "always", 1);

  // Another transform parameter is another preparation.
  const Dataset scaled = prepare("2");
  EXPECT_EQ(entries(), 3u);
  EXPECT_EQ(scaled.row(0).values[0], 2 * changed.row(0).values[0]);
}

// A file a transform's path parameter names keys the entry: changing it (a new time) prepares afresh.
TEST_F(PreparedCache, AFileATransformReadsKeysTheEntry) {
  write_data("4");
  { std::ofstream(dir.path() / "offset.txt") << "10\n"; }
  const auto prepare_with_offset = [&] {
    const Protocol p = parse_protocol(R"({"datasets": [{"name": "d", "source": "libsvm", "params": {"path": "d.txt"},
        "transforms": [{"name": "file_offset", "params": {"file": "offset.txt"}}]}],
        "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}]})",
                                      "p.json", dir.path(), registry_with_fixture("file_offset"));
    return *prepare_datasets(p, &cache).at(0).shared;
  };
  EXPECT_EQ(prepare_with_offset().row(0).values[0], 14.0f);
  EXPECT_EQ(prepare_with_offset().row(0).values[0], 14.0f);  // kept
  EXPECT_EQ(entries(), 1u);
  { std::ofstream(dir.path() / "offset.txt") << "20\n"; }
  const auto later = std::filesystem::last_write_time(dir.path() / "offset.txt") + std::chrono::seconds(5);
  std::filesystem::last_write_time(dir.path() / "offset.txt", later);
  EXPECT_EQ(prepare_with_offset().row(0).values[0], 24.0f);
  EXPECT_EQ(entries(), 2u);
}

// A damaged entry is not trusted: the dataset is prepared afresh and the entry rewritten.
TEST_F(PreparedCache, ADamagedEntryIsPreparedAfresh) {
  write_data("4");
  const Dataset first = prepare();
  ASSERT_EQ(entries(), 1u);
  const auto entry = std::filesystem::directory_iterator(dir.path() / "cache" / "prepared")->path();
  std::filesystem::resize_file(entry, std::filesystem::file_size(entry) / 2);
  EXPECT_EQ(dataset_checksum(prepare()), dataset_checksum(first));
  EXPECT_EQ(dataset_checksum(prepare()), dataset_checksum(first));
  EXPECT_EQ(entries(), 1u);
}

// The core keeps nothing by itself: without a cache (a sweep not given one), even `always` writes no entry.
TEST_F(PreparedCache, WithoutACacheNothingIsKept) {
  write_data("4");
  EXPECT_EQ(prepare_datasets(protocol()).at(0).shared->size(), 3);
  EXPECT_EQ(entries(), 0u);
  EXPECT_EQ(dataset_checksum(*prepare_datasets(protocol()).at(0).shared), dataset_checksum(prepare()));
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace glimpse::test
