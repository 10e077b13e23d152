// The keys of a run's random streams.
#pragma once

#include <cstdint>
#include <string>

#include "glimpse/random.hpp"

namespace glimpse {

// Stream keys, by meaning (STYLE.md section 6): data order and oracle/query draws depend on (seed,
// dataset) only, so runs sharing them are paired; the learner's own stream adds learner and parameters.
struct StreamKeys {
  std::uint64_t order, oracle, query, learner;
  static std::uint64_t dataset_key(std::uint64_t seed, const std::string& dataset) {
    return derive_key(derive_key(mix64(seed), hash_name("glimpse.dataset")), hash_name(dataset));
  }
  static std::uint64_t order_key(std::uint64_t seed, const std::string& dataset) {
    return derive_key(dataset_key(seed, dataset), hash_name("order"));
  }
  StreamKeys(std::uint64_t seed, const std::string& dataset, const std::string& learner_name,
             const std::string& params) {
    const std::uint64_t data = dataset_key(seed, dataset);
    order = order_key(seed, dataset);
    oracle = derive_key(data, hash_name("oracle"));
    query = derive_key(data, hash_name("query_rule"));
    learner = derive_key(derive_key(data, hash_name(learner_name)), hash_name(params));
  }
};

}  // namespace glimpse
