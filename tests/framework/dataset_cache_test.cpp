// The dataset cache and catalog installation, on data made here (no package download).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "dataset_catalog.hpp"
#include "glimpse/dataset_file.hpp"
#include "hdf5.hpp"
#include "installed_datasets.hpp"
#include "orchestrator.hpp"
#include "prepared_cache.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

using DatasetCache = InFreshDatasetCache;

TEST_F(DatasetCache, LargeDenseRowsAreMappedFromTheFileAndCopiedBeforeAnyChange) {
  const std::int64_t n = 300;
  const std::int32_t d = 1000;  // 1.2 MB of rows: stored 4 KiB-aligned, so loading maps them
  std::vector<Feature> values(static_cast<std::size_t>(n * d));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<Feature>(i % 977) * 0.25f - 3;
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) labels[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % 4);
  const Dataset original = Dataset::dense(n, d, values, labels, 4);
  save_cached_dataset(original, "wide", {});
  const Dataset loaded = load_cached_dataset("wide", "here");
  EXPECT_TRUE(loaded.borrows_values());
  EXPECT_EQ(dataset_checksum(loaded), dataset_checksum(original));
  EXPECT_EQ(loaded.row(n - 1).values[d - 1], values.back());
  Dataset changed = loaded;  // a transform's copy: its first write copies the rows, the loaded dataset keeps them
  changed.mutable_values()[0] = 42;
  EXPECT_FALSE(changed.borrows_values());
  EXPECT_TRUE(loaded.borrows_values());
  EXPECT_EQ(loaded.row(0).values[0], values[0]);
  EXPECT_EQ(changed.row(0).values[0], 42.0f);
  EXPECT_EQ(changed.row(n - 1).values[d - 1], values.back());
}

TEST_F(DatasetCache, DenseAndSparseDatasetsRoundTripWithTheirChecksum) {
  Dataset dense = Dataset::dense(3, 2, {1, 2, 3, 4, 5, 6}, {0, 2, 1}, 3);
  dense.class_names = {"a", "b", "c"};
  save_cached_dataset(dense, "small", {"pkg", "1.0", "/x", "a test"});
  const Dataset back = load_cached_dataset("small", "here");
  EXPECT_EQ(dataset_checksum(back), dataset_checksum(dense));
  EXPECT_EQ(back.class_names, dense.class_names);
  EXPECT_EQ(back.label(1), 2);
  EXPECT_EQ(back.row(2).values[1], 6.0f);

  Dataset sparse = Dataset::sparse(5, {0, 2, 2, 3}, {0, 4, 2}, {1.5f, -1, 2}, {1, 0, 1}, 2);
  save_cached_dataset(sparse, "sparse", {});
  const Dataset sparse_back = load_cached_dataset("sparse", "here");
  EXPECT_FALSE(sparse_back.is_dense());
  EXPECT_EQ(dataset_checksum(sparse_back), dataset_checksum(sparse));
  EXPECT_EQ(sparse_back.row(1).nnz, 0);

  Dataset changed = dense;
  changed.mutable_values()[0] = 1.5f;
  EXPECT_NE(dataset_checksum(changed), dataset_checksum(dense));
  const auto listed = list_cached_datasets();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name, "small");
  EXPECT_EQ(listed[0].origin.package, "pkg");
}

// A cache file written by hand, as a damaged or foreign file could be (the fuzz target's findings).
void write_sparse_cache(const std::string& name, std::int64_t k, const std::string& class_names,
                        const std::vector<std::int32_t>& y, const std::vector<std::int64_t>& indptr) {
  const h5::Handle f = h5::create_file(cached_dataset_file(name));
  h5::write_attribute(f, "format", std::string("glimpse-dataset"));
  h5::write_attribute(f, "K", k);
  h5::write_attribute(f, "d", std::int64_t{4});
  h5::write_attribute(f, "layout", std::string("csr"));
  h5::write_attribute(f, "class_names", class_names);
  h5::write_vector<std::int32_t>(f, "y", y);
  h5::write_vector<std::int64_t>(f, "indptr", indptr);
  h5::write_vector<std::int32_t>(f, "indices", std::vector<std::int32_t>{0, 1, 3});
  h5::write_vector<float>(f, "values", std::vector<float>{1, 2, 3});
}

TEST_F(DatasetCache, DamagedFilesAreRefusedNotTrusted) {
  std::filesystem::create_directories(dir.path() / "cache");
  const std::string file = cached_dataset_file("damaged").string();
  const std::string reinstall = "; reinstall it with: glimpse datasets install damaged";
  write_sparse_cache("damaged", 2, "x\ny", {1, 2}, {0, 1, 3});
  EXPECT_EQ(load_cached_dataset("damaged", "here").size(), 2);
  write_sparse_cache("damaged", 2147483647, "x\ny", {1, 2}, {0, 1, 3});  // formerly 2^31 class names allocated
  EXPECT_EQ(error_of([] { load_cached_dataset("damaged", "here"); }),
            file + ": K = 2147483647 with 2 class names; expected K >= 2 names, one per class" + reinstall);
  write_sparse_cache("damaged", 2, "x\ny", {1, 0}, {0, 1, 3});
  EXPECT_EQ(error_of([] { load_cached_dataset("damaged", "here"); }),
            file + ": row 2: label 0 outside 1..2" + reinstall);
  write_sparse_cache("damaged", 2, "x\ny", {1, 2}, {2, 0, 3});
  EXPECT_EQ(error_of([] { load_cached_dataset("damaged", "here"); }),
            file + ": sparse dataset: the first row offset must be 0" + reinstall);
  write_sparse_cache("damaged", 2, "x\ny", {1, 2, 1}, {0, 2, 1, 3});
  EXPECT_EQ(error_of([] { load_cached_dataset("damaged", "here"); }),
            file + ": sparse dataset: row offsets must not decrease (row 2)" + reinstall);
}

TEST_F(DatasetCache, AMissingDatasetSaysHowToInstallIt) {
  const auto message = error_of([] { load_cached_dataset("vehicle", "x.json: datasets[0].name"); });
  EXPECT_EQ(message.rfind("x.json: datasets[0].name: dataset 'vehicle' is not installed (no ", 0), 0u) << message;
  // (not "install vehicle": the name may be a typo, and the catalog is the CLI's to know)
  EXPECT_NE(message.find("'glimpse datasets list' shows the catalog, and 'glimpse datasets install NAME' installs"),
            std::string::npos);
}

std::string catalog_for(const std::filesystem::path& csv, const std::string& counts, const std::string& checksum) {
  return R"({"datasets": [{"name": "tiny", "package": "none", "package_version": "0",
    "files": [")" +
         csv.string() + R"("], "reader": {"name": "csv", "params": {"header": "no"}, "file_params": ["path"]},
    "rows": [2, 4], "expect": {"n": 3, "d": 2, "K": 2, "class_counts": )" +
         counts + R"(, "checksum": ")" + checksum + R"("}}]})";
}

TEST_F(DatasetCache, InstallChecksTheCatalogAndProtocolsLoadTheResult) {
  const auto csv = dir.path() / "tiny.csv";
  { std::ofstream(csv) << "0,0,1\n1,2,1\n3,4,2\n5,6,1\n7,8,2\n"; }
  std::ostringstream log;
  // Wrong expectations: every difference is named.
  const auto wrong = parse_catalog(catalog_for(csv, "[1, 1]", "0000000000000000"), "c.json");
  const auto message = error_of([&] { install_datasets(wrong, {"tiny"}, registry(), log); });
  EXPECT_NE(message.find("dataset 'tiny': the converted data differ from the catalog:"), std::string::npos) << message;
  EXPECT_NE(message.find("class counts are [2, 1], expected [1, 1]"), std::string::npos) << message;
  EXPECT_NE(message.find("checksum is "), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(cached_dataset_file("tiny")));
  // Rows 2-4 of the file: labels 1, 2, 1 -> classes [2, 1]; the checksum of exactly those rows.
  Dataset expected = Dataset::dense(3, 2, {1, 2, 3, 4, 5, 6}, {0, 1, 0}, 2);
  const auto right = parse_catalog(catalog_for(csv, "[2, 1]", dataset_checksum(expected)), "c.json");
  const auto report = install_datasets(right, {}, registry(), log);
  EXPECT_EQ(report.installed, (std::vector<std::string>{"tiny"}));
  EXPECT_EQ(install_datasets(right, {"tiny"}, registry(), log).already_installed, (std::vector<std::string>{"tiny"}));
  EXPECT_EQ(error_of([&] { install_datasets(right, {"nope"}, registry(), log); }),
            "unknown dataset 'nope'; the catalog has: tiny");

  const Protocol p = parse_protocol(R"({"datasets": [{"name": "tiny", "transforms": [{"name": "l2_normalize"}]}],
      "oracle": {"name": "full"}, "learners": [{"name": "spa"}], "metrics": [{"name": "mistakes"}]})",
                                    "p.json", dir.path(), registry());
  const auto loaded = prepare_datasets(p);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].shared->size(), 3);
  EXPECT_NEAR(loaded[0].shared->row(0).squared_norm(), 1.0, 1e-6);
}

TEST(Catalog, TheBuiltInCatalogIsCompleteAndConsistent) {
  const auto& catalog = builtin_catalog();
  for (const char* name : {"vehicle", "shuttle", "satimage", "satimage_test", "letter", "segment", "vowel", "glass",
                           "dna", "iris", "wine", "digits", "fashion_mnist", "fashion_mnist_test"})
    EXPECT_TRUE(std::any_of(catalog.begin(), catalog.end(), [&](const auto& e) { return e.name == name; })) << name;
  for (const auto& e : catalog) {
    std::int64_t total = 0;
    for (auto c : e.class_counts) total += c;
    EXPECT_EQ(total, e.n) << e.name;
    EXPECT_EQ(static_cast<std::int32_t>(e.class_counts.size()), e.k) << e.name;
    EXPECT_EQ(e.checksum.size(), 16u) << e.name;
  }
}

// The installed data source through the core: the entries a protocol writes by name, and the prepared cache.
using Installed = InFreshDatasetCache;

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
