// The order of a run's rows: how each pass visits them (the protocol's "order") and the permutation one pass draws.
// A ground-level file of the core: the round loop, the batch fit and the dataset preparation share it.
#pragma once

#include <cstdint>
#include <span>

namespace glimpse {

// How each pass visits the rows. Every mode but `file` draws from the run's order stream (seed, dataset), so
// runs on the same dataset and seed see the same sequence.
enum class StreamOrder {
  shuffle,           // a uniform permutation
  file,              // rows as stored
  by_class,          // class 1's rows, then class 2's, ... (each class shuffled)
  interleaved,       // one row of each class in turn (each class shuffled; exhausted classes drop out)
  class_balanced,    // each round a class uniformly at random, then one of its rows (with replacement)
  with_replacement,  // each round a row uniformly at random (with replacement); `rounds` rows per pass
};

// The order in which a run visits the rows in pass `pass`: a permutation drawn from (order_key, pass), or
// the file order when not shuffling. Runs with the same seed and dataset share the key.
// `labels` and `num_classes` serve the class-wise modes. Allocation-free for shuffle and file only.
void fill_stream_order(std::span<std::int64_t> order, std::uint64_t order_key, std::int64_t pass, StreamOrder mode,
                       std::span<const std::int32_t> labels, std::int32_t num_classes);

}  // namespace glimpse
