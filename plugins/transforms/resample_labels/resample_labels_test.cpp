// resample_labels: each label drawn from p(y|x), per seed.
#include <algorithm>
#include <array>
#include <cmath>
#include <glimpse/testing_gtest.hpp>
#include <tuple>

namespace glimpse::testing {
namespace {

// Two rows with known p(y|x): each seed's labels follow them (frequencies within 4 standard errors), seeds
// differ, and a dataset without p(y|x) is refused.
TEST(ResampleLabels, DrawsEachLabelFromPOfYGivenXPerSeed) {
  const std::int64_t n = 20000;
  std::vector<double> probabilities;
  for (std::int64_t i = 0; i < n; ++i)
    for (double p : i % 2 ? std::array{0.7, 0.2, 0.1} : std::array{0.0, 0.5, 0.5}) probabilities.push_back(p);
  Dataset base = Dataset::dense(n, 1, std::vector<Feature>(n, 1.0f), std::vector<std::int32_t>(n, 0), 3);
  base.class_probabilities = probabilities;
  auto resample = make<Transform>("resample_labels");
  EXPECT_TRUE(resample->per_seed());
  Dataset a = base, b = base, c = base;
  resample->apply(a, {0, 11, {}});
  resample->apply(b, {0, 11, {}});
  resample->apply(c, {1, 12, {}});
  EXPECT_TRUE(std::equal(a.labels().begin(), a.labels().end(), b.labels().begin()));
  EXPECT_FALSE(std::equal(a.labels().begin(), a.labels().end(), c.labels().begin()));
  std::array<std::array<double, 3>, 2> counts{};
  for (std::int64_t i = 0; i < n; ++i)
    counts[static_cast<std::size_t>(i % 2)][static_cast<std::size_t>(a.label(i))] += 1;
  EXPECT_EQ(counts[0][0], 0.0);  // probability 0 is never drawn
  const double half = n / 2.0;
  for (auto [row, label, p] : {std::tuple{0, 1, 0.5}, {1, 0, 0.7}, {1, 1, 0.2}, {1, 2, 0.1}})
    EXPECT_NEAR(counts[static_cast<std::size_t>(row)][static_cast<std::size_t>(label)] / half, p,
                4 * std::sqrt(p * (1 - p) / half));
  Dataset bare = Dataset::dense(2, 1, {1.0f, 2.0f}, {0, 1}, 2);
  EXPECT_EQ(error_of([&] {
              resample->apply(bare, {0, 1, {}});
            }),
            "resample_labels: the dataset carries no p(y|x); only synthetic sources (glm_mixture, gaussians) do");
}

}  // namespace
}  // namespace glimpse::testing
