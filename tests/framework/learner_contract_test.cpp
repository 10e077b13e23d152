// Contracts every loaded online learner must keep, checked over the registry (a new learner is covered by being
// built): the same seed gives the same predictions, scores stay finite, and its arithmetic matches the golden
// fingerprints recorded for its declared revision (at its defaults and with each choice or boolean parameter
// switched alone), so a change of its numbers cannot land without a revision bump
// (results pages record revisions; `glimpse reproduce --list` then marks them stale).
#include <Eigen/Core>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "support.hpp"

namespace glimpse::test {
namespace {

const char* const golden_file = GLIMPSE_TEST_DATA_DIR "/golden/learner_arithmetic.txt";

// The oracle of the weakest feedback a learner accepts (a candidate-set learner is then tested on sets, not on the
// single labels it also takes).
struct Played {
  std::vector<std::int32_t> predicted, proposed;
  std::vector<double> scores;
};

// 400 rounds over 60 Gaussian rows (d = 6, K = 4, labels from a fixed linear rule with 10% flipped), the learner
// with its default parameters but `overrides`, seed 7.
Played play(const LoadedPlugin& plugin, const std::map<std::string, std::string>& overrides = {}) {
  constexpr int k = 4, d = 6, n = 60, rounds = 400;
  Rng data_rng(11);
  std::vector<DenseRow> rows;
  std::vector<std::int32_t> labels;
  for (int i = 0; i < n; ++i) {
    std::vector<Feature> v(d);
    double best = -1e300;
    std::int32_t label = 0;
    for (int j = 0; j < d; ++j) v[j] = static_cast<Feature>(data_rng.normal());
    for (int c = 0; c < k; ++c) {
      const double score = v[c] - 0.5 * v[(c + 1) % d] + 0.25 * v[5];
      if (score > best) best = score, label = c;
    }
    if (data_rng.below(10) == 0) label = static_cast<std::int32_t>(data_rng.below(k));
    rows.emplace_back(v);
    labels.push_back(label);
  }
  const ProblemShape shape{rounds, d, k};
  auto learner = make<Learner>(plugin.spec->name, overrides, &shape);
  auto oracle = make<FeedbackOracle>(oracle_for(*plugin.spec));
  learner->reset(shape, 7);
  oracle->reset(shape);
  Played out;
  Prediction pred;
  pred.scores.resize(k);
  for (int t = 1; t <= rounds; ++t) {
    const auto i = static_cast<std::size_t>((t * 7) % n);
    const RoundTruth truth{t, labels[i], {}};
    learner->predict(rows[i].view(), pred);
    Rng round_rng(derive_key(3, static_cast<std::uint64_t>(t)));
    const Feedback feedback = oracle->respond(rows[i].view(), truth, pred, round_rng);
    learner->learn(rows[i].view(), pred, feedback);
    out.predicted.push_back(pred.predicted);
    out.proposed.push_back(pred.proposed);
    out.scores.insert(out.scores.end(), pred.scores.begin(), pred.scores.end());
  }
  return out;
}

// FNV-1a over the labels and the scores printed to 6 significant digits (so the fingerprint names the arithmetic,
// not the last bits a compiler's contraction choice may move).
std::string fingerprint(const Played& played) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](const std::string& text) {
    for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  };
  char buffer[32];
  for (std::size_t t = 0; t < played.predicted.size(); ++t)
    mix(std::to_string(played.predicted[t]) + ":" + std::to_string(played.proposed[t]) + ";");
  for (const double s : played.scores) {
    std::snprintf(buffer, sizeof buffer, "%.5e,", s == 0.0 ? 0.0 : s);  // -0 and 0 alike
    mix(buffer);
  }
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

// What the golden file fingerprints of a learner: its defaults (named by the learner alone), then each other value of
// each choice or boolean parameter alone (named learner:param=value), so that the arithmetic of a branch the
// defaults do not take (squarecb's `update normalized`, confidit's `matrix full`) cannot change unnoticed either.
std::vector<std::pair<std::string, std::map<std::string, std::string>>> variants(const PluginSpec& spec) {
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> out{{spec.name, {}}};
  for (const auto& param : spec.params) {
    std::vector<std::string> others;
    if (param.type == ParamType::choice) others = param.choices;
    if (param.type == ParamType::boolean) others = {"true", "false"};
    for (const auto& value : others)
      if (value != param.default_value)
        out.push_back({spec.name + ":" + param.name + "=" + value, {{param.name, value}}});
  }
  return out;
}

TEST(LearnerContract, SameSeedSamePredictionsAndFiniteScores) {
  ASSERT_GE(online_learners().size(), 13u);
  for (const auto* plugin : online_learners()) {
    SCOPED_TRACE(plugin->spec->name);
    const Played a = play(*plugin), b = play(*plugin);
    EXPECT_EQ(a.proposed, b.proposed);
    EXPECT_EQ(a.predicted, b.predicted);
    EXPECT_EQ(a.scores, b.scores);
    for (const double s : a.scores) ASSERT_TRUE(std::isfinite(s));
  }
}

TEST(LearnerContract, EigenBlocksTheSameOnEveryCpu) {
  // Eigen's product and factorisation blocking follows these sizes; read from CPUID they differ between CPUs (a
  // Zen 5 EPYC reports a 48 KiB L1 and 1 MiB L2) and so did cs_selectron's fingerprints. The build fixes them
  // (EIGEN_NO_CPUID in CMakeLists.txt) to Eigen's defaults.
  EXPECT_EQ(Eigen::l1CacheSize(), 32 * 1024);
  EXPECT_EQ(Eigen::l2CacheSize(), 256 * 1024);
  EXPECT_EQ(Eigen::l3CacheSize(), 2 * 1024 * 1024);
}

TEST(LearnerContract, ArithmeticMatchesTheGoldenFingerprintOfItsRevision) {
#if !GLIMPSE_REFERENCE_ARITHMETIC
  GTEST_SKIP() << "the fingerprints are of the reference build (-march=x86-64-v3, no FP contraction, Debian 12's GCC; "
                  "docs/reproducing.md): this build rounds differently (-march=native, another compiler or a "
                  "sanitizer), so its last bits, and the printed digits they move, may differ";
#endif
  std::map<std::string, std::pair<std::uint32_t, std::string>> recorded;
  {
    std::ifstream in(golden_file);
    std::string name, print;
    std::uint32_t revision = 0;
    while (in >> name >> revision >> print) recorded[name] = {revision, print};
  }
  const bool update = std::getenv("GLIMPSE_UPDATE_GOLDEN") != nullptr;
  std::ostringstream updated;
  for (const auto* plugin : online_learners())
    for (const auto& [name, overrides] : variants(*plugin->spec)) {
      std::string print;
      try {
        print = fingerprint(play(*plugin, overrides));
      } catch (const Error& error) {
        // A value that needs others the variant does not set (cs_selectron's costs = file: a file) has no
        // fingerprint; one that had one must still run.
        if (recorded.contains(name))
          ADD_FAILURE() << name << ": has a golden fingerprint but now fails: " << error.what();
        continue;
      }
      updated << name << ' ' << plugin->spec->revision << ' ' << print << '\n';
      if (update) continue;
      const auto it = recorded.find(name);
      const std::string how =
          "; if intended, bump its PluginSpec::revision, then record it with "
          "GLIMPSE_UPDATE_GOLDEN=1 build/bin/glimpse_tests --gtest_filter='LearnerContract.*' and "
          "regenerate the results pages that use it (glimpse reproduce --list)";
      if (it == recorded.end()) {  // a new learner (or variant): nothing to bump, only to record
        ADD_FAILURE() << name << ": no golden fingerprint in " << golden_file
                      << "; once its numbers are what you want, record it with GLIMPSE_UPDATE_GOLDEN=1 "
                         "build/bin/glimpse_tests --gtest_filter='LearnerContract.*'";
      } else if (it->second.first != plugin->spec->revision) {
        ADD_FAILURE() << name << ": revision " << plugin->spec->revision << " but " << golden_file
                      << " records revision " << it->second.first << how;
      } else {
        EXPECT_EQ(print, it->second.second)
            << name << ": its numbers changed at revision " << plugin->spec->revision << how;
      }
    }
  if (update) std::ofstream(golden_file) << updated.str();
}

}  // namespace
}  // namespace glimpse::test
