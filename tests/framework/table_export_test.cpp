// glimpse export's writers on a hand-made table whose CSV and JSON texts are written out below, and its
// readers on a table and a run's rounds stored through the HDF5 layer.
#include "table_export.hpp"

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
