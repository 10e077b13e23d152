// Checks shared by the candidate-label learners' tests (avg/max perceptron, avg/max pegasos, pegasos), which
// build on glimpse/algorithms/candidate_hinge.hpp: W read through unit probes, streams fed to several learners,
// and the properties every member keeps.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {

// W as a K x d matrix, read by predict() through the unit probes.
inline std::vector<std::vector<double>> weights_of(Learner& learner, int k, int d) {
  const auto rows = probe_scores(k, d, [&](const Instance& x, Prediction& pred) { learner.predict(x, pred); });
  std::vector<std::vector<double>> w(static_cast<std::size_t>(k), std::vector<double>(static_cast<std::size_t>(d)));
  for (std::size_t j = 0; j < rows.size(); ++j)
    for (std::size_t i = 0; i < w.size(); ++i) w[i][j] = rows[j][i];
  return w;
}

// Feeds the same random stream to several learners, with feedback built from the true label by `feedback`; returns
// each learner's W at the end.
template <class MakeFeedback>
std::vector<std::vector<std::vector<double>>> run_stream(std::vector<Learner*> learners, int k, int d, int rounds,
                                                         std::uint64_t seed, MakeFeedback&& feedback) {
  Rng rng(seed);
  Prediction pred = prediction_for(k);
  for (auto* l : learners) l->reset({rounds, d, k}, 0);
  for (int t = 0; t < rounds; ++t) {
    std::vector<Feature> v(d);
    for (auto& e : v) e = static_cast<Feature>(rng.normal());
    const DenseRow x(v);
    const auto y = static_cast<std::int32_t>(rng.below(k));
    for (auto* l : learners) {
      l->predict(x.view(), pred);
      l->learn(x.view(), pred, feedback(y));
    }
  }
  std::vector<std::vector<std::vector<double>>> result;
  for (auto* l : learners) result.push_back(weights_of(*l, k, d));
  return result;
}

// W after each of 300 rounds (K = 5, d = 3) of the candidate_set oracle (sizes 2 to 4) on a random stream.
inline std::vector<std::vector<std::vector<double>>> weights_per_candidate_round(const std::string& name) {
  const int k = 5, d = 3, rounds = 300;
  auto learner = make<Learner>(name, {{"precision", "double"}});
  learner->reset({500, d, k}, 0);
  auto oracle = make<FeedbackOracle>("candidate_set", {{"size", "2"}, {"max_size", "4"}});
  oracle->reset({500, d, k});
  Rng rng(9);
  Prediction pred = prediction_for(k);
  std::vector<std::vector<std::vector<double>>> weights;
  for (int t = 1; t <= rounds; ++t) {
    std::vector<Feature> v(d);
    for (auto& e : v) e = static_cast<Feature>(3 * rng.normal());
    const DenseRow x(v);
    const auto y = static_cast<std::int32_t>(rng.below(k));
    learner->predict(x.view(), pred);
    Rng round_rng(derive_key(1, static_cast<std::uint64_t>(t)));
    learner->learn(x.view(), pred, oracle->respond(x.view(), {t, y, {}}, pred, round_rng));
    weights.push_back(weights_of(*learner, k, d));
  }
  return weights;
}

// Pegasos in float at lambda = 1e-4: steps of 1e4 / t against a ball of radius 100, so the projection shrinks
// W = a V's scale by orders of magnitude a round; V in float overflowed (NaN scores from round ~40) before the fold
// was moved up. `oracle` with its parameters gives the feedback.
inline void expect_float_pegasos_finite(const std::string& name, const std::string& oracle_name,
                                        const std::map<std::string, std::string>& oracle_params) {
  const int k = 10, d = 20;
  auto learner = make<Learner>(name, {{"precision", "float"}, {"lambda", "0.0001"}});
  learner->reset({2000, d, k}, 0);
  auto oracle = make<FeedbackOracle>(oracle_name, oracle_params);
  oracle->reset({2000, d, k});
  Rng rng(4);
  Prediction pred = prediction_for(k);
  for (int t = 1; t <= 2000; ++t) {
    std::vector<Feature> v(d);
    double norm = 0;
    for (auto& e : v) e = static_cast<Feature>(rng.normal()), norm += double(e) * e;
    for (auto& e : v) e = static_cast<Feature>(e / std::sqrt(norm));
    const DenseRow x(v);
    learner->predict(x.view(), pred);
    for (const double s : pred.scores) ASSERT_TRUE(std::isfinite(s)) << "round " << t;
    Rng round_rng(derive_key(2, static_cast<std::uint64_t>(t)));
    const auto y = static_cast<std::int32_t>(rng.below(k));
    learner->learn(x.view(), pred, oracle->respond(x.view(), {t, y, {}}, pred, round_rng));
  }
}

// `name` on singleton candidate sets equals the margin Perceptron on the labels, round for round (the same stream).
inline void expect_singletons_give_the_margin_perceptron(const std::string& name) {
  const int k = 4, d = 3;
  auto learner = make<Learner>(name, {{"precision", "double"}});
  auto margin = make<Learner>("perceptron", {{"margin", "1"}, {"precision", "double"}});
  std::int32_t label = 0;
  const auto w = run_stream({learner.get()}, k, d, 200, 3, [&](std::int32_t y) {
    label = y;
    return Feedback{CandidateSetFeedback{{&label, 1}}};
  });
  const auto reference =
      run_stream({margin.get()}, k, d, 200, 3, [](std::int32_t y) { return Feedback{LabelFeedback{y}}; });
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) {
      EXPECT_NE(reference[0][i][j], 0.0);
      EXPECT_NEAR(w[0][i][j], reference[0][i][j], 1e-9);
    }
}

// `name` given exact labels equals pegasos on the same stream.
inline void expect_exact_labels_give_pegasos(const std::string& name) {
  const int k = 4, d = 3;
  auto learner = make<Learner>(name, {{"precision", "double"}});
  auto pegasos = make<Learner>("pegasos", {{"precision", "double"}});
  const auto w = run_stream({learner.get(), pegasos.get()}, k, d, 200, 4,
                            [](std::int32_t y) { return Feedback{LabelFeedback{y}}; });
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) {
      EXPECT_NE(w[1][i][j], 0.0);
      EXPECT_NEAR(w[0][i][j], w[1][i][j], 1e-9);
    }
}

// After every round of weights_per_candidate_round: each column of W sums to zero (the APH/MPH Perceptron
// updates), or ||W||_F <= 1/sqrt(lambda = 0.1) (Pegasos's projection).
inline void expect_columns_sum_to_zero_every_round(const std::string& name) {
  const auto per_round = weights_per_candidate_round(name);
  for (std::size_t t = 0; t < per_round.size(); ++t)
    for (std::size_t j = 0; j < per_round[t][0].size(); ++j) {
      double column_sum = 0;
      for (const auto& row : per_round[t]) column_sum += row[j];
      ASSERT_NEAR(column_sum, 0.0, 1e-9) << "round " << t + 1;
    }
}
inline void expect_in_the_pegasos_ball_every_round(const std::string& name) {
  const auto per_round = weights_per_candidate_round(name);
  for (std::size_t t = 0; t < per_round.size(); ++t) {
    double squared = 0;
    for (const auto& row : per_round[t])
      for (const double v : row) squared += v * v;
    ASSERT_LE(std::sqrt(squared), 1 / std::sqrt(0.1) + 1e-9) << "round " << t + 1;
  }
}

}  // namespace glimpse::testing
