// Loading a protocol's datasets and applying their transforms.
#include "prepared_dataset.hpp"

#include <chrono>
#include <iostream>
#include <optional>

#include "batch.hpp"
#include "glimpse/error.hpp"
#include "glimpse/random.hpp"
#include "stream_keys.hpp"
#include "stream_order.hpp"

namespace glimpse {

namespace {
// Prints what the dataset's reader and transforms had to say about it (Dataset::notes), from note `first` on: a
// per-seed copy repeats the shared dataset's notes, printed when that was prepared. The notes stay in the dataset,
// and every run records them in its trace.
void print_notes(const Dataset& data, const std::string& where, std::size_t first = 0) {
  for (std::size_t i = first; i < data.notes.size(); ++i) {
    const std::string line = "glimpse: note: " + where + ": " + data.notes[i] + "\n";
    std::cerr << line << std::flush;  // one write per line: seeds are prepared on several threads
  }
}
}  // namespace

std::shared_ptr<const Dataset> PreparedDataset::materialize(std::uint64_t seed) const {
  if (!per_seed()) return shared;
  Dataset copy;
  if (seed_source) {
    try {
      copy = seed_source->load_for_seed(
          {seed, derive_key(StreamKeys::dataset_key(seed, name), hash_name("source")), {}, {}});
    } catch (const Error& e) {
      throw Error(where + ", seed " + std::to_string(seed), e.what());
    }
  } else {
    copy = *shared;
  }
  const std::size_t shared_notes = seed_source ? 0 : copy.notes.size();
  std::vector<std::int64_t> first_pass;
  for (std::size_t i = 0; i < seed_transforms.size(); ++i) {
    // The first pass's order over the rows as they are now (an earlier transform may have dropped some); it
    // is the runs' own order when no later transform changes the rows.
    first_pass.resize(static_cast<std::size_t>(copy.size()));
    fill_stream_order(first_pass, StreamKeys::order_key(seed, name), 0, order, copy.labels(), copy.num_classes());
    const std::uint64_t key =
        derive_key(derive_key(StreamKeys::dataset_key(seed, name), hash_name("transform")), first_seed_transform + i);
    std::vector<std::int64_t> fit_rows;
    if (fit_split && seed_transforms[i]->fits_statistics()) {
      // The split the runs will draw (it depends on the labels only, which transforms keep).
      const BatchSplitRows split = make_batch_split(copy, *fit_split, split_key(seed, split_name));
      if (fit_split->fit_transforms_on == BatchSplit::FitRows::labelled) {
        for (const std::int64_t labelled : split.labelled)
          fit_rows.push_back(split.train[static_cast<std::size_t>(labelled)]);
      } else {
        fit_rows = split.train;
      }
    }
    seed_transforms[i]->apply(copy, {seed, key, first_pass, fit_rows});
  }
  copy.validate(where + ", seed " + std::to_string(seed));
  print_notes(copy, where + ", seed " + std::to_string(seed), shared_notes);
  return std::make_shared<const Dataset>(std::move(copy));
}

namespace {
// Loads one dataset entry and applies its transforms up to the first per-seed one. `stream_name` keys its
// per-seed transforms: a test part uses its training part's name, so a split drawn in both is complementary.
PreparedDataset prepare_one(const DatasetUse& use, StreamOrder order, const std::string& stream_name,
                            PreparationCache* cache, const std::optional<BatchSplit>& fit_split = std::nullopt) {
  {
    const std::string where = use.where + " (dataset '" + use.name + "')";
    // A source drawing per seed is never cached; any other preparation that computes something (parsing,
    // generating, transforming) is, when there is a cache.
    const ParamValues source_values = use.source.resolve(0, nullptr);
    std::shared_ptr<DataSource> source = use.source.create<DataSource>(source_values);
    const bool cacheable = cache && !source->per_seed() && (!source->loads_prepared_file() || !use.transforms.empty());
    const std::string key = cacheable ? cache->key(use, source_values, *source, fit_split.has_value()) : "";
    std::optional<PreparedEntry> kept = cacheable ? cache->find(key) : std::nullopt;
    const auto started = std::chrono::steady_clock::now();
    Dataset data;
    std::shared_ptr<const DataSource> seed_source;
    if (kept) {
      data = std::move(kept->data);
    } else {
      try {
        // A per-seed source is drawn once here too: its shape resolves the transforms' parameters.
        data = source->per_seed() ? source->load_for_seed({}) : source->load();
      } catch (const Error& e) {
        // Readers already name the file and line; add which dataset of the protocol it was.
        throw Error(use.where + " (source '" + use.source.name() + "')", e.what());
      }
      if (source->per_seed()) seed_source = std::move(source);
    }
    const ProblemShape raw_shape = kept ? kept->raw_shape : data.shape();
    std::vector<std::unique_ptr<Transform>> transforms;
    for (const auto& transform : use.transforms)
      transforms.push_back(transform.create<Transform>(transform.resolve(0, &raw_shape)));
    // Transforms before the first per-seed one run once; from there on, once per seed on a copy. Fitted on a
    // split's training part, a transform with fitted statistics is per seed too (each seed draws its own split).
    const auto seed_dependent = [&](const Transform& t) { return t.per_seed() || (fit_split && t.fits_statistics()); };
    std::size_t first_per_seed = 0;
    while (!seed_source && first_per_seed < transforms.size() && !seed_dependent(*transforms[first_per_seed])) {
      if (!kept) transforms[first_per_seed]->apply(data, {});
      ++first_per_seed;
    }
    if (kept && kept->transforms_applied != first_per_seed)
      throw Error(where, "the cached preparation " + std::to_string(kept->transforms_applied) +
                             " transforms deep does not match the protocol's " + std::to_string(first_per_seed) +
                             " (a plugin changed without its files changing?); run with GLIMPSE_PREPARED_CACHE=off");
    if (cacheable && !kept)
      cache->keep(key, data, raw_shape, first_per_seed,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    PreparedDataset prepared;
    prepared.name = stream_name;
    prepared.where = where;
    prepared.order = order;
    prepared.fit_split = fit_split;
    prepared.split_name = use.split_name;
    prepared.first_seed_transform = first_per_seed;
    for (std::size_t i = first_per_seed; i < transforms.size(); ++i)
      prepared.seed_transforms.push_back(std::move(transforms[i]));
    prepared.seed_source = std::move(seed_source);
    if (!prepared.per_seed()) data.validate(where);
    if (prepared.seed_source) data = Dataset();  // each seed draws its own
    print_notes(data, where);
    prepared.shared = std::make_shared<const Dataset>(std::move(data));
    return prepared;
  }
}
}  // namespace

std::vector<PreparedDataset> prepare_datasets(const Protocol& protocol, PreparationCache* cache) {
  std::vector<PreparedDataset> result;
  for (const auto& use : protocol.datasets) {
    std::optional<BatchSplit> fit_split;
    if (protocol.batch() && protocol.split.fit_transforms_on != BatchSplit::FitRows::all)
      fit_split = split_rule(protocol, use);
    PreparedDataset prepared = prepare_one(use, protocol.order, use.name, cache, fit_split);
    if (!use.test.empty())
      prepared.test =
          std::make_shared<const PreparedDataset>(prepare_one(use.test.front(), protocol.order, use.name, cache));
    result.push_back(std::move(prepared));
  }
  return result;
}

BatchSplit split_rule(const Protocol& protocol, const DatasetUse& use) {
  BatchSplit rule = protocol.split;
  if (use.labelled) rule.labelled = *use.labelled;
  return rule;
}

std::uint64_t split_key(std::uint64_t seed, const std::string& split_name) {
  return derive_key(StreamKeys::dataset_key(seed, split_name), hash_name("split"));
}

}  // namespace glimpse
