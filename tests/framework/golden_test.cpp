// Golden end-to-end run: tests/data/golden/cspa_golden.json (LIBSVM file, min-max scaling, L2 rows, bandit
// oracle, CSPA at two betas, two seeds). The expected counts were produced by glimpse and confirmed by an
// independent NumPy implementation replaying the same rows: `tools/verify_cspa.py TRACE DATA` reported
// identical proposals in all 1,200 rounds.
#include <tuple>

#include "hdf5.hpp"
#include "orchestrator.hpp"
#include "summary.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

TEST(Golden, CspaOnASmallBanditProtocolGivesTheVerifiedCounts) {
  TempDir dir;
  const Protocol protocol =
      load_protocol_file(std::filesystem::path(GLIMPSE_TEST_DATA_DIR) / "golden" / "cspa_golden.json", registry());
  sweep_quietly(protocol, dir.path() / "golden.h5");
  const h5::Handle file = h5::open_file(dir.path() / "golden.h5", false);
  const auto runs = read_run_summaries(file);
  ASSERT_EQ(runs.size(), 4u);
  // (beta, seed) -> correct proposals out of 300.
  const std::vector<std::tuple<std::string, std::int64_t, int>> expected{
      {"0.3", 0, 187}, {"0.3", 1, 195}, {"1", 0, 146}, {"1", 1, 139}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& [beta, seed, correct] = expected[i];
    EXPECT_NE(runs[i].params.find("\"beta\":" + beta + ","), std::string::npos) << runs[i].params;
    EXPECT_EQ(runs[i].seed, seed);
    ASSERT_EQ(runs[i].metrics.front().name, "online_accuracy");
    EXPECT_DOUBLE_EQ(runs[i].metrics.front().value * 300, correct) << "run " << runs[i].id;
  }
}

}  // namespace
}  // namespace glimpse::test
