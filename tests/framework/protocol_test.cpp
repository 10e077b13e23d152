// Protocol validation: every class of mistake is refused before any run, with the file and the path.
#include "protocol.hpp"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <filesystem>
#include <set>

#include "support.hpp"
#include "sweep_plan.hpp"

namespace glimpse::test {
namespace {

// A valid protocol; each test breaks one thing by replacing a fragment.
const std::string valid = R"({
  "name": "t",
  "datasets": [{"source": "gaussians", "params": {"n_per_class": 10}}],
  "oracle": {"name": "full"},
  "learners": [{"name": "perceptron", "grid": {"eta": [0.5, 1]}}, {"name": "spa"}],
  "metrics": [{"name": "online_accuracy"}],
  "seeds": 2
})";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("fragment not found: " + from);
  return text.replace(at, from.size(), to);
}

std::string refusal(const std::string& text) {
  return error_of([&] { parse_protocol(text, "x.json", ".", registry()); });
}

TEST(Protocol, AcceptsAValidProtocolAndExpandsItsRuns) {
  const Protocol p = parse_protocol(valid, "x.json", ".", registry());
  EXPECT_EQ(p.learners.size(), 2u);
  EXPECT_EQ(p.learners[0].grid_size(), 2);
  EXPECT_EQ(p.seeds, (std::vector<std::uint64_t>{0, 1}));
  const auto runs = expand_runs(p, {{40, 2, 4}});
  ASSERT_EQ(runs.size(), 6u);  // (2 grid points + 1) x 2 seeds
  EXPECT_EQ(runs[0].id, "000000");
  EXPECT_EQ(runs[1].learner_params.real("eta"), 0.5);
  EXPECT_EQ(runs[2].learner_params.real("eta"), 1.0);
  EXPECT_EQ(runs[5].learner, 1);
}

// The files a page generator reads, as its paper.json names them ("generator": {"inputs": [...]}, paths from the
// repository's root): vw_comparison's grid of VW settings, say. They are data, not protocols.
std::set<std::filesystem::path> generator_inputs(const std::filesystem::path& root) {
  std::set<std::filesystem::path> inputs;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "protocols")) {
    if (entry.path().filename() != "paper.json") continue;
    boost::property_tree::ptree paper;
    boost::property_tree::read_json(entry.path().string(), paper);
    if (const auto listed = paper.get_child_optional("generator.inputs"))
      for (const auto& [unused, input] : *listed)
        inputs.insert(std::filesystem::weakly_canonical(root / input.get_value<std::string>()));
  }
  return inputs;
}

TEST(Protocol, GeneratorInputsAreReadFromPaperJson) {
  const auto root = std::filesystem::path(GLIMPSE_TEST_DATA_DIR) / ".." / "..";
  const auto inputs = generator_inputs(root);
  EXPECT_TRUE(inputs.count(std::filesystem::weakly_canonical(root / "protocols/vw_comparison/vw_grid.json")));
  EXPECT_TRUE(inputs.count(std::filesystem::weakly_canonical(root / "benchmarks/compare_vw.py")));
}

// The protocols we ship (paper reproductions) stay valid as plugins and the protocol format evolve. A paper's
// paper.json and explanations.json (glimpse reproduce) and its generator's inputs are not protocols.
TEST(Protocol, EveryShippedProtocolParses) {
  const auto root = std::filesystem::path(GLIMPSE_TEST_DATA_DIR) / ".." / "..";
  const auto not_protocols = generator_inputs(root);
  int parsed = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "protocols")) {
    const auto name = entry.path().filename();
    if (entry.path().extension() != ".json" || name == "paper.json" || name == "explanations.json" ||
        not_protocols.count(std::filesystem::weakly_canonical(entry.path())))
      continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_protocol_file(entry.path(), registry()));
    ++parsed;
  }
  EXPECT_GE(parsed, 16);
}

TEST(Protocol, HashIgnoresFormattingAndOutputButNotContent) {
  const Protocol a = parse_protocol(valid, "x.json", ".", registry());
  std::string reformatted = with(valid, "\"seeds\": 2", "\"seeds\":    2, \"output\": \"elsewhere.h5\"");
  EXPECT_EQ(a.hash, parse_protocol(reformatted, "x.json", ".", registry()).hash);
  EXPECT_NE(a.hash, parse_protocol(with(valid, "\"seeds\": 2", "\"seeds\": 3"), "x.json", ".", registry()).hash);
}

TEST(Protocol, RefusesMalformedJsonWithTheLine) {
  EXPECT_EQ(refusal("{\n  \"name\": \"t\",\n  \"oracle\": \n}").rfind("x.json:4: invalid JSON", 0), 0u);
}

TEST(Protocol, RefusesUnknownTopLevelKey) {
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"seed\": 2")),
            "x.json: seed: unknown key 'seed'; expected one of name, description, kind, datasets, oracle, query_rule, "
            "learners, metrics, seeds, passes, order, rounds, selection, trace, test_every, split, output");
}

TEST(Protocol, RefusesUnknownPluginListingTheAvailableOnes) {
  const auto message = refusal(with(valid, "\"name\": \"spa\"", "\"name\": \"spaa\""));
  EXPECT_EQ(message.rfind("x.json: learners[1].name: unknown learner 'spaa'; available: ", 0), 0u) << message;
  EXPECT_NE(message.find("perceptron"), std::string::npos);
  EXPECT_NE(message.find("spa"), std::string::npos);
}

TEST(Protocol, RefusesAPluginOfTheWrongKind) {
  EXPECT_EQ(refusal(with(valid, "\"oracle\": {\"name\": \"full\"}", "\"oracle\": {\"name\": \"spa\"}"))
                .rfind("x.json: oracle.name: 'spa' is a learner, expected an oracle", 0),
            0u);
}

TEST(Protocol, RefusesUnknownParameterListingTheDeclaredOnes) {
  EXPECT_EQ(refusal(with(valid, "\"eta\": [0.5, 1]", "\"step\": [0.5, 1]")),
            "x.json: learners[0].grid.step: unknown parameter 'step' of learner 'perceptron'; declared: eta, margin, "
            "precision");
}

TEST(Protocol, RefusesOutOfRangeGridValueAtItsIndex) {
  EXPECT_EQ(refusal(with(valid, "[0.5, 1]", "[0.5, -1]")),
            "x.json: learners[0].grid.eta[1]: expected a number > 0, got -1");
}

TEST(Protocol, RefusesValuesOfTheWrongType) {
  EXPECT_EQ(refusal(with(valid, "\"n_per_class\": 10", "\"n_per_class\": \"ten\""))
                .rfind("x.json: datasets[0].params.n_per_class: expected an integer >= 1, got 'ten'", 0),
            0u);
  EXPECT_EQ(refusal(with(valid, "\"n_per_class\": 10", "\"n_per_class\": [10]")),
            "x.json: datasets[0].params.n_per_class: expected a single integer value, got a list or an object");
  EXPECT_EQ(refusal(with(valid, "\"eta\": [0.5, 1]", "\"eta\": 0.5")),
            "x.json: learners[0].grid.eta: expected a non-empty list of values");
  EXPECT_EQ(refusal(with(valid, "{\"name\": \"spa\"}", "{\"name\": \"spa\", \"params\": {\"precision\": \"half\"}}")),
            "x.json: learners[1].params.precision: expected one of float, double, got 'half'");
}

TEST(Protocol, RefusesALearnerThatCannotUseTheOraclesFeedback) {
  EXPECT_EQ(refusal(with(valid, "\"oracle\": {\"name\": \"full\"}", "\"oracle\": {\"name\": \"bandit\"}")),
            "x.json: learners[0].name: learner 'perceptron' accepts label feedback, but oracle 'bandit' produces "
            "correctness feedback");
}

TEST(Protocol, ResolvesPathParametersAgainstTheProtocolFolderAndRefusesMissingFiles) {
  TempDir dir;
  { std::ofstream(dir.path() / "train.libsvm") << "1 1:0.5\n2 1:-1\n"; }
  const std::string source = "{\"source\": \"gaussians\", \"params\": {\"n_per_class\": 10}}";
  const Protocol p =
      parse_protocol(with(valid, source, "{\"source\": \"libsvm\", \"params\": {\"path\": \"train.libsvm\"}}"),
                     "x.json", dir.path(), registry());
  const ParamValues params = p.datasets[0].source.resolve(0, nullptr);
  EXPECT_EQ(params.text("path"), "train.libsvm");  // as written: run metadata does not depend on the folder
  EXPECT_EQ(params.path("path"), dir.path() / "train.libsvm");
  EXPECT_EQ(error_of([&] {
              parse_protocol(with(valid, source, "{\"source\": \"libsvm\", \"params\": {\"path\": \"test.libsvm\"}}"),
                             "x.json", dir.path(), registry());
            }),
            "x.json: datasets[0].params.path: expected an existing file, got 'test.libsvm' (looked for " +
                (dir.path() / "test.libsvm").string() + ")");
}

TEST(Protocol, RefusesMissingRequiredParameter) {
  EXPECT_EQ(refusal(with(valid, "{\"source\": \"gaussians\", \"params\": {\"n_per_class\": 10}}",
                         "{\"source\": \"libsvm\"}")),
            "x.json: datasets[0].params: missing required parameter 'path' of data_source 'libsvm' (the data file "
            "(gzip-compressed or plain))");
}

TEST(Protocol, RefusesMissingSectionsAndBadSettings) {
  EXPECT_EQ(refusal(with(valid, "\"oracle\": {\"name\": \"full\"},", "")),
            "x.json: missing \"oracle\" (the feedback oracle, e.g. {\"name\": \"full\"})");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"seeds\": 0")), "x.json: seeds: expected an integer >= 1, got '0'");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"seeds\": [1, 1]")), "x.json: seeds: seed 1 is listed twice");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"kind\": \"batch\"")),
            "x.json: oracle: a batch protocol has no oracle: the labelled rows of its \"split\" keep their labels");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"kind\": \"offline\"")),
            "x.json: kind: expected online or batch, got 'offline'");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"trace\": \"round\"")),
            "x.json: trace: expected rounds or curves, got 'round'");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"trace\": [\"rounds\"]")),
            "x.json: trace: expected rounds or curves, got a list or an object");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"selection\": {\"goal\": \"maximum\"}")),
            "x.json: selection.goal: expected max or min, got 'maximum'");
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"selection\": {\"per_seed\": \"yes\"}")),
            "x.json: selection.per_seed: expected true or false, got 'yes'");
  EXPECT_FALSE(
      parse_protocol(with(valid, "\"seeds\": 2", "\"trace\": \"curves\""), "x.json", ".", registry()).trace_rounds);
  EXPECT_EQ(refusal(with(valid, "\"seeds\": 2", "\"selection\": {\"metric\": \"accuracy\"}")),
            "x.json: selection.metric: 'accuracy' is not produced by any metric; metrics: online_accuracy");
  EXPECT_EQ(refusal(with(valid, "[{\"name\": \"online_accuracy\"}]",
                         "[{\"name\": \"online_accuracy\"}, {\"name\": \"online_accuracy\"}]")),
            "x.json: metrics[1]: metric output name 'online_accuracy' is used twice; rename one with \"as\"");
  EXPECT_EQ(refusal(with(valid, "{\"name\": \"spa\"}", "{\"name\": \"spa\"}, {\"name\": \"spa\"}")),
            "x.json: learners[2]: learner label 'spa' is used twice; give one a distinct \"as\"");
  EXPECT_EQ(refusal(with(valid, "{\"name\": \"spa\"}", "{\"name\": \"spa\", \"as\": \"perceptron\"}")),
            "x.json: learners[1]: learner label 'perceptron' is used twice; give one a distinct \"as\"");
  EXPECT_NO_THROW(parse_protocol(with(valid, "{\"name\": \"spa\"}", "{\"name\": \"perceptron\", \"as\": \"p2\"}"),
                                 "x.json", ".", registry()));
}

// Without a goal, the selection goes the way its metric plugin declares better; a grid chosen by a metric that
// declares neither way needs the goal written (the highest mean of mistakes would be the worst point).
TEST(Protocol, TheSelectionGoalIsTheMetricsDeclaredWayUnlessGiven) {
  const auto selection = [](const std::string& text) { return parse_protocol(text, "x.json", ".", registry()).selection; };
  const std::string metrics = "[{\"name\": \"online_accuracy\"}]";
  EXPECT_TRUE(selection(valid).maximize);
  const std::string by_mistakes = with(valid, metrics, "[{\"name\": \"mistakes\"}, {\"name\": \"online_accuracy\"}]");
  EXPECT_EQ(selection(by_mistakes).metric, "mistakes");
  EXPECT_FALSE(selection(by_mistakes).maximize);
  EXPECT_FALSE(selection(with(by_mistakes, "\"seeds\": 2", "\"seeds\": 2, \"selection\": {\"metric\": \"mistakes_proposed\"}"))
                   .maximize);
  EXPECT_TRUE(selection(with(by_mistakes, "\"seeds\": 2", "\"seeds\": 2, \"selection\": {\"metric\": \"online_accuracy\"}"))
                  .maximize);
  EXPECT_TRUE(selection(with(by_mistakes, "\"seeds\": 2", "\"seeds\": 2, \"selection\": {\"goal\": \"max\"}")).maximize);
  const std::string by_queries = with(valid, metrics, "[{\"name\": \"queries\"}, {\"name\": \"online_accuracy\"}]");
  EXPECT_EQ(refusal(by_queries),
            "x.json: selection: which grid point is best is not known: 'queries' comes from a metric that does not "
            "declare whether higher or lower is better; add \"selection\": {\"metric\": \"queries\", \"goal\": "
            "\"max\"} (or \"min\")");
  EXPECT_FALSE(
      selection(with(by_queries, "\"seeds\": 2", "\"seeds\": 2, \"selection\": {\"goal\": \"min\"}")).maximize);
  // Without a grid nothing is chosen, and the old default stands (online: max); a query rule's grid is a grid.
  const std::string no_grid = with(by_queries, "\"grid\": {\"eta\": [0.5, 1]}", "\"params\": {\"eta\": 0.5}");
  EXPECT_TRUE(selection(no_grid).maximize);
  EXPECT_NE(refusal(with(no_grid, "\"seeds\": 2",
                         "\"seeds\": 2, \"query_rule\": {\"name\": \"random\", \"grid\": {\"probability\": [0.1, 0.5]}}"))
                .find("x.json: selection: which grid point is best is not known"),
            std::string::npos);
}

TEST(Protocol, RefusesOutOfRangeExpressionOnceTheShapeIsKnown) {
  const Protocol p = parse_protocol(with(valid, "[0.5, 1]", "[0.5, \"1-K/4\"]"), "x.json", ".", registry());
  EXPECT_EQ(error_of([&] {
              expand_runs(p, {{40, 2, 4}});
            }),
            "x.json: learners[0].grid.eta[1]: expected a number > 0, got '1-K/4' = 0 with K=4, d=2, n=40");
}

TEST(Protocol, TransformGridsExpandIntoPairedDatasetVariants) {
  const Protocol p = parse_protocol(R"({"datasets": [{"name": "g", "source": "gaussians",
      "transforms": [{"name": "minmax_scale", "grid": {"lower": [-1, 0]}}, {"name": "rbf_support", "grid": {"g": [0.5, 2, 8]}}]}],
      "oracle": {"name": "bandit"}, "learners": [{"name": "cspa", "grid": {"beta": [0.1, 0.2]}}],
      "metrics": [{"name": "online_accuracy"}], "seeds": 2})",
                                    "x.json", ".", registry());
  ASSERT_EQ(p.datasets.size(), 6u);
  EXPECT_EQ(p.datasets[0].variant, R"({"minmax_scale.lower":-1,"rbf_support.g":0.5})");
  EXPECT_EQ(p.datasets[1].variant, R"({"minmax_scale.lower":-1,"rbf_support.g":2})");
  EXPECT_EQ(p.datasets[5].variant, R"({"minmax_scale.lower":0,"rbf_support.g":8})");
  for (const auto& d : p.datasets) {
    EXPECT_EQ(d.name, "g");  // one name: runs of every variant share orders and oracle draws
    EXPECT_TRUE(d.transforms[1].grid.empty());
  }
  EXPECT_EQ(p.datasets[4].transforms[1].resolve(0, nullptr).real("g"), 2.0);
  EXPECT_EQ(expand_runs(p, std::vector<ProblemShape>(6, {100, 2, 4})).size(), 6u * 2 * 2);
  EXPECT_EQ(
      refusal(with(
          valid, "\"params\": {\"n_per_class\": 10}",
          "\"params\": {\"n_per_class\": 10}, \"transforms\": [{\"name\": \"rbf_support\", \"grid\": {\"g\": [0]}}]")),
      "x.json: datasets[0].transforms[0].grid.g[0]: expected a number > 0, got 0");
}

// A grid value that an expression of K, d, n makes equal to another on some dataset (the CSPA paper's beta
// 1/(2(K-1)) = 0.1 at K = 6) is run once there, and said; elsewhere both run. A value listed twice is refused.
TEST(Protocol, AGridPointRepeatedByAnExpressionRunsOnceAndIsSaid) {
  const Protocol p = parse_protocol(with(valid, "\"eta\": [0.5, 1]", "\"eta\": [0.1, 0.3, \"1/(2*(K-1))\"]"), "x.json",
                                    ".", registry());
  std::vector<std::string> notes;
  const auto at_six = expand_runs(p, {{40, 2, 6}}, &notes);  // 1/(2*5) = 0.1, listed first
  EXPECT_EQ(at_six.size(), (2u + 1) * 2);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("x.json: learners[0] (perceptron): on dataset"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("grid point 2 has the values of grid point 0"), std::string::npos) << notes[0];
  std::set<std::pair<double, std::uint64_t>> points;  // (eta, seed): each once
  for (const auto& run : at_six) {
    if (run.learner == 0) {
      EXPECT_TRUE(points.insert({run.learner_params.real("eta"), run.seed}).second);
    }
  }
  notes.clear();
  EXPECT_EQ(expand_runs(p, {{40, 2, 4}}, &notes).size(), (3u + 1) * 2);  // 1/6: a third point
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(refusal(with(valid, "\"eta\": [0.5, 1]", "\"eta\": [0.5, 1, 0.50]")),
            "x.json: learners[0].grid.eta[2]: repeats eta[0] (0.5): a grid point is run once, so list each value once");
}

// The learner's random stream is keyed by what defines its arithmetic: the parameters that differ from their declared
// defaults. A value written out equal to its default keys the same stream as leaving it out, so declaring a new
// parameter whose default keeps the old behaviour changes no existing run.
TEST(Protocol, TheLearnerStreamIsKeyedByTheParametersThatDifferFromTheirDefaults) {
  const auto identity_of = [](const std::string& learner) {
    const Protocol p = parse_protocol(with(valid, "{\"name\": \"perceptron\", \"grid\": {\"eta\": [0.5, 1]}}", learner),
                                      "x.json", ".", registry());
    return expand_runs(p, {{40, 2, 4}}).front().learner_identity;
  };
  EXPECT_EQ(identity_of(R"({"name": "perceptron"})"), "{}");
  EXPECT_EQ(identity_of(R"({"name": "perceptron", "params": {"eta": 1}})"), "{}");  // eta's default is 1
  EXPECT_EQ(identity_of(R"({"name": "perceptron", "params": {"eta": 0.5}})"), R"({"eta":0.5})");
  // A wrapped learner's parameters count under its name; the explorer's base at its default does not.
  EXPECT_EQ(identity_of(R"({"name": "explorer", "oracle": {"name": "bandit"}, "params": {"base.eta": 0.5}})"),
            R"({"base.eta":0.5})");
}

}  // namespace
}  // namespace glimpse::test
