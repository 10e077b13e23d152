// The bad-input corpus (tests/data/bad/): every file breaks one rule, and each is refused with a message that
// names the file (and line, or path inside the protocol) and says what was expected.
#include "orchestrator.hpp"
#include "support.hpp"

namespace glimpse::test {
namespace {

const std::filesystem::path corpus = std::filesystem::path(GLIMPSE_TEST_DATA_DIR) / "bad";

struct BadData {
  const char* file;
  const char* source;
  std::map<std::string, std::string> params;  // besides the path
  const char* expected;                       // the message after "<folder>/"
};

class BadDataFile : public ::testing::TestWithParam<BadData> {};

TEST_P(BadDataFile, IsRefusedWithAMessageNamingFileLineAndExpectation) {
  const BadData& bad = GetParam();
  auto params = bad.params;
  const std::string path = (corpus / bad.file).string();
  if (std::string(bad.source) == "idx")
    params["images"] = params["labels"] = path;
  else
    params["path"] = path;
  const std::string message = error_of([&] { make<DataSource>(bad.source, params)->load().validate(path); });
  EXPECT_EQ(message, (corpus / bad.expected).string()) << bad.file;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, BadDataFile,
    ::testing::Values(
        BadData{"truncated_feature.libsvm",
                "libsvm",
                {},
                "truncated_feature.libsvm:2: expected a number after '3:', got ''"},
        BadData{"label_zero.libsvm",
                "libsvm",
                {{"num_classes", "2"}},
                "label_zero.libsvm:2: label 0 is outside 1..2 (num_classes)"},
        BadData{"label_above_k.libsvm",
                "libsvm",
                {{"num_classes", "2"}},
                "label_above_k.libsvm:2: label 3 is outside 1..2 (num_classes)"},
        BadData{"label_not_integer.libsvm",
                "libsvm",
                {{"num_classes", "2"}},
                "label_not_integer.libsvm:1: label 1.5 is not an integer (num_classes wants the integers 1..2)"},
        BadData{"duplicate_index.libsvm",
                "libsvm",
                {},
                "duplicate_index.libsvm:1: feature indices must increase, got 2 after 2"},
        BadData{"unsorted_index.libsvm",
                "libsvm",
                {},
                "unsorted_index.libsvm:1: feature indices must increase, got 2 after 3"},
        BadData{
            "nan_value.libsvm",
            "libsvm",
            {},
            "nan_value.libsvm:1: feature 1 is not finite ('nan'; the source's non_finite parameter can read it as 0)"},
        BadData{
            "inf_value.libsvm",
            "libsvm",
            {},
            "inf_value.libsvm:1: feature 1 is not finite ('inf'; the source's non_finite parameter can read it as 0)"},
        BadData{"huge_index.libsvm", "libsvm", {}, "huge_index.libsvm:1: feature index 99999999999999 is too large"},
        BadData{"empty.libsvm", "libsvm", {}, "empty.libsvm: no data rows"},
        BadData{"ragged_row.csv", "csv", {}, "ragged_row.csv:3: expected 3 fields, got 2"},
        BadData{"text_feature.csv", "csv", {}, "text_feature.csv:3: column 'x2': expected a number, got 'abc'"},
        BadData{"no_data_section.arff",
                "arff",
                {},
                "no_data_section.arff:4: expected @relation, @attribute or @data, got '0.5,x'"},
        BadData{"wrong_magic.idx",
                "idx",
                {},
                "wrong_magic.idx: byte offset 2: expected data type 0x08 (unsigned byte), got 0x7"}),
    [](const auto& test_case) {
      std::string name = test_case.param.file;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

struct BadProtocol {
  const char* file;
  const char* expected;  // the message after "<folder>/"
};

class BadProtocolFile : public ::testing::TestWithParam<BadProtocol> {};

TEST_P(BadProtocolFile, IsRefusedBeforeAnyRunWithThePathInsideIt) {
  const BadProtocol& bad = GetParam();
  const std::string message = error_of([&] { list_runs(load_protocol_file(corpus / bad.file, registry())); });
  EXPECT_EQ(message.substr(0, std::min(message.size(), (corpus / bad.expected).string().size())),
            (corpus / bad.expected).string())
      << message;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, BadProtocolFile,
    ::testing::Values(
        BadProtocol{"malformed.json", "malformed.json:3: invalid JSON: expected ']' or ','"},
        BadProtocol{"typo_plugin.json", "typo_plugin.json: learners[0].name: unknown learner 'percepton'; available: "},
        BadProtocol{"unknown_param.json",
                    "unknown_param.json: learners[0].params.etta: unknown parameter 'etta' of learner 'perceptron'; "
                    "declared: eta, margin, precision"},
        BadProtocol{"wrapped_unknown_param.json",
                    "wrapped_unknown_param.json: learners[0].params.base.eta: unknown parameter 'eta' of learner "
                    "'arow'; declared: r, precision"},
        BadProtocol{"wrapped_bandit_learner.json",
                    "wrapped_bandit_learner.json: learners[0].grid.base[1]: learner 'cspa' does not learn from full "
                    "labels, which 'base' must"},
        BadProtocol{"wrapped_out_of_range.json",
                    "wrapped_out_of_range.json: learners[0].grid.base.eta[1]: expected a number > 0, got 0"},
        BadProtocol{"wrong_type.json", "wrong_type.json: seeds: expected an integer >= 1, got 'three'"},
        BadProtocol{"out_of_range.json", "out_of_range.json: learners[0].grid.eta[1]: expected a number > 0, got -0.5"},
        BadProtocol{"fit_rows_typo.json",
                    "fit_rows_typo.json: split.fit_transforms_on: expected training, labelled or all, got 'train'"},
        BadProtocol{"transforms_not_a_list.json",
                    "transforms_not_a_list.json: datasets[1].transforms: expected a non-empty list"},
        BadProtocol{"missing_dataset.json",
                    "missing_dataset.json: datasets[0] (source 'installed'): dataset 'no_such_dataset' is not installed"}),
    [](const auto& test_case) {
      std::string name = test_case.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(BadPlugin, ALibraryBuiltForAnotherApiVersionIsRefusedNamingBothVersions) {
  const auto file = std::filesystem::path(GLIMPSE_TEST_FIXTURE_DIR) / "wrong_version" / "fixture_wrong_version.so";
  PluginRegistry registry;
  const std::string message = error_of([&] { registry.load_file(file); });
  EXPECT_EQ(message, file.string() + ": was built for glimpse plugin API version " +
                         std::to_string(GLIMPSE_PLUGIN_API_VERSION + 41) + ", this glimpse uses version " +
                         std::to_string(GLIMPSE_PLUGIN_API_VERSION) + ": rebuild the plugin against this glimpse");
}

}  // namespace
}  // namespace glimpse::test
