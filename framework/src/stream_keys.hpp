// The keys of a run's random streams, and the revision of the core's arithmetic.
#pragma once

#include <cstdint>
#include <string>

#include "glimpse/random.hpp"

namespace glimpse {

// The core's arithmetic revision: bumped whenever the core changes a number a run produces, whatever its plugins: the
// stream keys below, the row orders, the batch splits, how a protocol expands into runs. Recorded in every trace
// (resuming refuses a trace of another revision) and in every results page's fingerprint (glimpse --version --json).
//   1: streams keyed by the learner's printed parameters (every declared parameter, defaults included)
//   2: keyed by the parameters that differ from their declared defaults; a grid point is run once
inline constexpr int core_arithmetic_revision = 2;

// Stream keys, by meaning, never by thread: data order and oracle/query draws depend on (seed,
// dataset) only, so runs sharing them are paired; the learner's own stream adds learner and parameters.
struct StreamKeys {
  std::uint64_t order, oracle, query, learner;
  static std::uint64_t dataset_key(std::uint64_t seed, const std::string& dataset) {
    return derive_key(derive_key(mix64(seed), hash_name("glimpse.dataset")), hash_name(dataset));
  }
  static std::uint64_t order_key(std::uint64_t seed, const std::string& dataset) {
    return derive_key(dataset_key(seed, dataset), hash_name("order"));
  }
  // `learner_identity`: the learner's parameters that differ from their declared defaults (RunSpec::learner_identity),
  // so that declaring a new parameter whose default keeps the old behaviour leaves every stream as it was.
  StreamKeys(std::uint64_t seed, const std::string& dataset, const std::string& learner_name,
             const std::string& learner_identity) {
    const std::uint64_t data = dataset_key(seed, dataset);
    order = order_key(seed, dataset);
    oracle = derive_key(data, hash_name("oracle"));
    query = derive_key(data, hash_name("query_rule"));
    learner = derive_key(derive_key(data, hash_name(learner_name)), hash_name(learner_identity));
  }
};

}  // namespace glimpse
