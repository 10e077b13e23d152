// noisy_label: the empirical flip matrix, refused matrices, and the learners that accept it.

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

// The empirical P(reported j | true y) of an oracle over `draws` rounds per class.
std::vector<std::vector<double>> empirical_noise(FeedbackOracle& oracle, int k, int draws) {
  oracle.reset({1, 1, k});
  const DenseRow x({1});
  Prediction pred;
  std::vector<std::vector<double>> flips(static_cast<std::size_t>(k), std::vector<double>(static_cast<std::size_t>(k)));
  for (int y = 0; y < k; ++y)
    for (int t = 0; t < draws; ++t) {
      Rng rng(derive_key(static_cast<std::uint64_t>(y), static_cast<std::uint64_t>(t)));
      const auto f = oracle.respond(x.view(), {t, y, {}}, pred, rng);
      flips[static_cast<std::size_t>(y)][static_cast<std::size_t>(std::get<NoisyLabelFeedback>(f).label)] +=
          1.0 / draws;
    }
  return flips;
}

TEST(NoisyLabelOracle, EmpiricalFlipMatrixConvergesToTheRequestedOne) {
  const int draws = 40000;
  const auto uniform = empirical_noise(*make<FeedbackOracle>("noisy_label", {{"rate", "0.3"}}), 4, draws);
  for (int y = 0; y < 4; ++y)
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(uniform[y][j], y == j ? 0.7 : 0.1, 0.008) << y << "," << j;
  const auto pairwise =
      empirical_noise(*make<FeedbackOracle>("noisy_label", {{"model", "pairwise"}, {"rate", "0.25"}}), 3, draws);
  for (int y = 0; y < 3; ++y)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(pairwise[y][j], j == y ? 0.75 : (j == (y + 1) % 3 ? 0.25 : 0.0), 0.008) << y << "," << j;

  TempDir dir;
  const auto file = dir.path() / "noise.txt";
  { std::ofstream(file) << "0.5 0.5 0\n0 1 0\n0.2 0.3 0.5\n"; }
  const auto from_file =
      empirical_noise(*make<FeedbackOracle>("noisy_label", {{"model", "matrix"}, {"matrix", file.string()}}), 3, draws);
  const double expected[3][3] = {{0.5, 0.5, 0}, {0, 1, 0}, {0.2, 0.3, 0.5}};
  for (int y = 0; y < 3; ++y)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(from_file[y][j], expected[y][j], 0.008) << y << "," << j;
  // Deterministic: the same round stream gives the same label.
  auto first = make<FeedbackOracle>("noisy_label", {{"rate", "0.5"}}),
       second = make<FeedbackOracle>("noisy_label", {{"rate", "0.5"}});
  first->reset({1, 1, 5});
  second->reset({1, 1, 5});
  const DenseRow x({1});
  Prediction pred;
  for (std::uint64_t t = 0; t < 200; ++t) {
    Rng a(derive_key(9, t)), b(derive_key(9, t));
    ASSERT_EQ(std::get<NoisyLabelFeedback>(first->respond(x.view(), {1, 2, {}}, pred, a)).label,
              std::get<NoisyLabelFeedback>(second->respond(x.view(), {1, 2, {}}, pred, b)).label);
  }
  // Rate 0 is the full oracle.
  const auto clean = empirical_noise(*make<FeedbackOracle>("noisy_label", {{"rate", "0"}}), 3, 100);
  for (int y = 0; y < 3; ++y) EXPECT_DOUBLE_EQ(clean[y][y], 1.0);
}

TEST(NoisyLabelOracle, RefusesBadMatricesAndMismatchedParameters) {
  TempDir dir;
  const auto file = dir.path() / "noise.txt";
  { std::ofstream(file) << "0.5 0.4\n0 1\n"; }
  EXPECT_EQ(error_of([&] {
              make<FeedbackOracle>("noisy_label", {{"model", "matrix"}, {"matrix", file.string()}});
            }),
            "oracle 'noisy_label': " + file.string() + ":1: row sums to 0.9; a noise matrix row must sum to 1");
  EXPECT_EQ(error_of([&] {
              make<FeedbackOracle>("noisy_label", {{"model", "matrix"}});
            }),
            "oracle 'noisy_label': model 'matrix' needs the matrix parameter (a file)");
  EXPECT_EQ(error_of([&] {
              make<FeedbackOracle>("noisy_label", {{"matrix", file.string()}});
            }),
            "oracle 'noisy_label': the matrix parameter needs model 'matrix' (model is 'uniform')");
}

TEST(NoisyLabelOracle, FullFeedbackLearnersAcceptIt) {
  EXPECT_TRUE(plugins().spec("copa").accepts.contains(FeedbackKind::noisy_label));
  EXPECT_TRUE(plugins().spec("perceptron").accepts.contains(FeedbackKind::noisy_label));
}

}  // namespace
}  // namespace glimpse::testing
