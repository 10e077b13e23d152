// GoogleTest fixtures and assertions for a plugin's unit tests, on top of glimpse/testing.hpp: a fresh temporary
// folder per test, a reader fixture that loads text written to a file, a fresh dataset cache, and a check that a
// learner's arithmetic does not depend on the features' scale.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "glimpse/testing.hpp"

namespace glimpse::testing {

// A fresh, empty folder under the system temp folder, removed when the object goes.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("glimpse-test-" + std::string(info ? info->test_suite_name() : "x") + "-" +
             std::string(info ? info->name() : "y") + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

#ifdef PLUGIN_DIR
// Fixture whose dataset cache ($GLIMPSE_DATA: installed datasets, prepared entries) is a fresh folder, dir/cache.
class InFreshDatasetCache : public ::testing::Test {
 protected:
  TempDir dir;
  void SetUp() override { ::setenv("GLIMPSE_DATA", (dir.path() / "cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("GLIMPSE_DATA"); }
};

// Fixture for reader tests: writes text to a file in a fresh folder and loads it with a data source.
class ReaderTest : public ::testing::Test {
 protected:
  ReaderTest(std::string source, std::string file_name)
      : source_(std::move(source)), file_name_(std::move(file_name)) {}
  Dataset load(const std::string& text, std::map<std::string, std::string> params = {}) {
    { std::ofstream(dir.path() / file_name_) << text; }
    params["path"] = file();
    return make<DataSource>(source_, params)->load();
  }
  std::string refusal(const std::string& text, std::map<std::string, std::string> params = {}) {
    return error_of([&] { load(text, params); });
  }
  std::string file() const { return (dir.path() / file_name_).string(); }
  TempDir dir;

 private:
  std::string source_, file_name_;
};

// VW's normalised step does not depend on a feature's scale: the same stream with feature j multiplied by c_j
// (powers of two, so that every product is exact) gives the same scores to the last bit.
inline void expect_scale_free(const std::string& name, const std::map<std::string, std::string>& params, bool bandit) {
  auto plain = make<Learner>(name, params), scaled = make<Learner>(name, params);
  const int k = 4;
  plain->reset({10, 3, k}, 5);
  scaled->reset({10, 3, k}, 5);
  Rng rng(11);
  const std::array<double, 3> c{8, 0.125, 1};
  for (int t = 0; t < 300; ++t) {
    std::vector<Feature> row(3), row_scaled(3);
    for (int j = 0; j < 3; ++j) {
      row[j] = static_cast<Feature>(rng.uniform() * 2 - 1) * (t % 7 == j ? 0 : 1);  // zeros now and then
      row_scaled[j] = static_cast<Feature>(row[j] * c[static_cast<std::size_t>(j)]);
    }
    const DenseRow x(row), xs(row_scaled);
    Prediction p = prediction_for(k), ps = prediction_for(k);
    plain->predict(x.view(), p);
    scaled->predict(xs.view(), ps);
    ASSERT_EQ(p.scores, ps.scores) << "round " << t;
    ASSERT_EQ(p.proposed, ps.proposed) << "round " << t;
    const int label = (row[0] > 0) + 2 * (row[1] > 0);
    if (bandit) {
      plain->learn(x.view(), p, CorrectnessFeedback{p.proposed == label});
      scaled->learn(xs.view(), ps, CorrectnessFeedback{ps.proposed == label});
    } else {
      plain->learn(x.view(), p, LabelFeedback{label});
      scaled->learn(xs.view(), ps, LabelFeedback{label});
    }
  }
}

#endif

}  // namespace glimpse::testing
