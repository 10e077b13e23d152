// label_on_query: exactly the queried rounds are labelled.

#include "hdf5.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

// label_on_query is the selective-sampling name of the labeller: under a rule it gives exactly what `full`
// gives, and the learner learns only on queried rounds (the run differs from an always-queried one).
TEST(SelectiveSampling, LabelOnQueryOracleLabelsExactlyTheQueriedRounds) {
  TempDir dir;
  const auto run = [&](const std::string& oracle, const std::string& rule) {
    const Protocol protocol = parse_protocol(R"({"name": "ss",
        "datasets": [{"source": "glm_mixture", "params": {"num_classes": 3, "dim": 10, "n": 300}}],
        "oracle": {"name": ")" + oracle + R"("}, "query_rule": {"name": ")" +
                                                 rule + R"("},
        "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}, {"name": "queries"}]})",
                                             "ss.json", ".", registry());
    sweep_quietly(protocol, dir.path() / (oracle + rule + ".h5"));
    const h5::Handle file = h5::open_file(dir.path() / (oracle + rule + ".h5"), false);
    const h5::Handle rounds = h5::open_group(file, "runs/000000/rounds");
    return std::pair(h5::read_vector<std::uint8_t>(rounds, "queried"),
                     h5::read_vector<std::int32_t>(rounds, "predicted"));
  };
  const auto labelled = run("label_on_query", "random");
  EXPECT_EQ(labelled, run("full", "random"));
  const auto asked = std::count(labelled.first.begin(), labelled.first.end(), 1);
  EXPECT_GT(asked, 10);
  EXPECT_LT(asked, 100);
  EXPECT_NE(labelled.second, run("label_on_query", "always").second);
}

}  // namespace
}  // namespace glimpse::test
