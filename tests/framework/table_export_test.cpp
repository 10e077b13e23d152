// glimpse export's writers on a hand-made table whose CSV and JSON texts are written out below, and its
// readers on a table and a run's rounds stored through the HDF5 layer; the per-round integer columns' stored
// types and compression.
#include "table_export.hpp"

#include <hdf5.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "glimpse/error.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

using Type = h5::TableColumn::Type;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

std::vector<h5::TableColumn> awkward_table() {
  return {{Type::text, "params", {"{\"eta\":1,\"margin\":0}", "plain", "two\nlines"}, {}, {}},
          {Type::integer, "seed", {}, {0, -3, 9007199254740993}, {}},
          {Type::real, "accuracy", {}, {}, {0.1, nan, 1e-300}},
          {Type::real, "loss", {}, {}, {inf, -inf, 2.0 / 3.0}}};
}

std::string written(const std::vector<h5::TableColumn>& table, ExportFormat format) {
  std::ostringstream out;
  write_table(table, format, out);
  return out.str();
}

TEST(TableExport, CsvQuotesWhatNeedsItAndLeavesNanEmpty) {
  EXPECT_EQ(written(awkward_table(), ExportFormat::csv),
            "params,seed,accuracy,loss\n"
            "\"{\"\"eta\"\":1,\"\"margin\"\":0}\",0,0.1,Inf\n"
            "plain,-3,,-Inf\n"
            "\"two\nlines\",9007199254740993,1e-300,0.6666666666666666\n");
}

TEST(TableExport, JsonHasOneObjectPerRowAndNullForNonFiniteNumbers) {
  EXPECT_EQ(written(awkward_table(), ExportFormat::json),
            "[\n"
            " {\"params\": \"{\\\"eta\\\":1,\\\"margin\\\":0}\", \"seed\": 0, \"accuracy\": 0.1, \"loss\": null},\n"
            " {\"params\": \"plain\", \"seed\": -3, \"accuracy\": null, \"loss\": null},\n"
            " {\"params\": \"two\\u000alines\", \"seed\": 9007199254740993, \"accuracy\": 1e-300, "
            "\"loss\": 0.6666666666666666}\n"
            "]\n");
  EXPECT_EQ(written({}, ExportFormat::json), "[\n]\n");
}

TEST(TableExport, ColumnsOfUnequalLengthAreRefused) {
  auto table = awkward_table();
  table[2].reals.pop_back();
  EXPECT_THROW(written(table, ExportFormat::csv), Error);
  EXPECT_THROW(parse_export_format("xml"), Error);
}

TEST(TableExport, TablesAndRoundsReadBackAsStored) {
  const TempDir dir;
  const auto path = dir.path() / "export.h5";
  {
    const h5::Handle file = h5::create_file(path);
    h5::write_table(file, "summary", awkward_table(), 3);
    const h5::Handle rounds = h5::create_group(h5::create_group(h5::create_group(file, "runs"), "000004"), "rounds");
    const std::vector<std::uint8_t> correct{1, 0, 1};
    const std::vector<float> loss{0.5f, 0.25f, 0.125f};
    h5::write_vector<std::uint8_t>(rounds, "correct", correct);
    h5::write_vector<float>(rounds, "loss", loss);
  }
  const h5::Handle file = h5::open_file(path, false);
  EXPECT_EQ(written(read_trace_table(file, "t.h5", "summary"), ExportFormat::csv),
            written(awkward_table(), ExportFormat::csv));
  EXPECT_EQ(written(read_trace_table(file, "t.h5", "rounds", "000004"), ExportFormat::csv),
            "correct,loss\n1,0.5\n0,0.25\n1,0.125\n");
  EXPECT_THROW(read_trace_table(file, "t.h5", "curves"), Error);  // not written
  EXPECT_THROW(read_trace_table(file, "t.h5", "rounds"), Error);  // no --run
  EXPECT_THROW(read_trace_table(file, "t.h5", "rounds", "000005"), Error);
  EXPECT_THROW(read_trace_table(file, "t.h5", "runs"), Error);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

// The stored type of a dataset (size in bytes, signed) and whether it is deflated.
struct Stored {
  std::size_t bytes;
  bool is_signed, deflated;
};
Stored stored(const h5::Handle& group, const char* name) {
  const hid_t dataset = H5Dopen2(group.id(), name, H5P_DEFAULT);
  const hid_t type = H5Dget_type(dataset), properties = H5Dget_create_plist(dataset);
  unsigned flags = 0;
  std::size_t elements = 0;
  const Stored s{
      H5Tget_size(type), H5Tget_sign(type) == H5T_SGN_2,
      H5Pget_filter_by_id2(properties, H5Z_FILTER_DEFLATE, &flags, &elements, nullptr, 0, nullptr, nullptr) >= 0};
  H5Pclose(properties), H5Tclose(type), H5Dclose(dataset);
  return s;
}

TEST(TraceIntegers, StoredInTheNarrowestSignedTypeAndDeflatedOnlyWhereAskedAndThatPays) {
  TempDir dir;
  const h5::Handle file = h5::create_file(dir.path() / "t.h5");
  std::vector<std::int32_t> labels(10000), wide(10000);
  std::vector<std::int64_t> shuffled(10000);
  std::vector<std::uint8_t> constant(10000, 1);
  std::uint64_t state = 12345;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    labels[i] = 1 + static_cast<std::int32_t>((state >> 33) % 26);  // near-random labels 1..26
    wide[i] = i % 2 ? -40000 : 40000;
    shuffled[i] = static_cast<std::int64_t>((state >> 20) % 15000);
  }
  h5::write_integers<std::int32_t>(file, "labels", labels);
  h5::write_integers<std::int32_t>(file, "wide", wide);
  h5::write_integers<std::int64_t>(file, "shuffled", shuffled);
  h5::write_integers<std::int64_t>(file, "negative", std::vector<std::int64_t>{-1, 0, 1});
  h5::write_integers<std::uint8_t>(file, "constant", constant);
  std::vector<std::uint8_t> flags(10000);
  for (std::size_t i = 0; i < flags.size(); ++i) flags[i] = static_cast<std::uint8_t>((i * 7919) % 13 < 4);
  h5::write_integers<std::uint8_t>(file, "flags", flags, h5::Deflate::flags);
  h5::write_integers<std::uint8_t>(file, "raw_flags", flags);
  h5::write_integers<std::int32_t>(file, "labels_flags", labels, h5::Deflate::flags);
  h5::write_integers<std::int64_t>(file, "always", shuffled, h5::Deflate::always);
  h5::write_integers<std::int32_t>(file, "never", std::vector<std::int32_t>(10000, 3), h5::Deflate::never);

  const auto expect = [&](const char* name, std::size_t bytes, bool is_signed, bool deflated) {
    const Stored s = stored(file, name);
    EXPECT_EQ(s.bytes, bytes) << name;
    EXPECT_EQ(s.is_signed, is_signed) << name;
    EXPECT_EQ(s.deflated, deflated) << name;
  };
  expect("labels", 1, true, false);        // 4.7 bits of entropy in 8: deflate would halve it at most
  expect("wide", 4, true, false);          // two values, +-40000: int32; signed columns are never tried
  expect("flags", 1, false, true);         // 0/1 flags: deflate shrinks them several fold
  expect("raw_flags", 1, false, false);    // unless not asked to (the default)
  expect("labels_flags", 1, true, false);  // Deflate::flags leaves signed columns alone
  expect("shuffled", 2, true, false);      // < 32768: int16; random
  expect("negative", 1, true, false);      // too short to deflate
  expect("constant", 1, false, false);     // unsigned input keeps its type; one value: stored as the fill value
  {
    const hid_t dataset = H5Dopen2(file.id(), "constant", H5P_DEFAULT);
    EXPECT_EQ(H5Dget_storage_size(dataset), 0u);  // no chunk written, nothing compressed
    H5Dclose(dataset);
    EXPECT_EQ(h5::read_vector<std::uint8_t>(file, "constant"), constant);  // and it reads back whole
    h5::write_integers<std::int64_t>(file, "constant_wide", std::vector<std::int64_t>(100, -7));
    EXPECT_EQ(h5::read_vector<std::int64_t>(file, "constant_wide"), std::vector<std::int64_t>(100, -7));
    expect("constant_wide", 1, true, false);
  }
  expect("always", 2, true, true);
  expect("never", 1, true, false);
  // Every value reads back as written, in the caller's type.
  EXPECT_EQ(h5::read_vector<std::int32_t>(file, "labels"), labels);
  EXPECT_EQ(h5::read_vector<std::int32_t>(file, "wide"), wide);
  EXPECT_EQ(h5::read_vector<std::int64_t>(file, "shuffled"), shuffled);
  EXPECT_EQ(h5::read_vector<std::int64_t>(file, "negative"), (std::vector<std::int64_t>{-1, 0, 1}));
  EXPECT_EQ(h5::read_vector<std::uint8_t>(file, "constant"), constant);
  EXPECT_EQ(h5::read_vector<std::int64_t>(file, "always"), shuffled);
  EXPECT_EQ(h5::read_vector<std::uint8_t>(file, "flags"), flags);
  EXPECT_EQ(h5::read_vector<std::uint8_t>(file, "raw_flags"), flags);
}

}  // namespace
}  // namespace glimpse::test
