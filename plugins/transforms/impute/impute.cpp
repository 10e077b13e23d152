// Fills missing feature values (NaN, which a reader's non_finite: keep leaves) with a statistic of the feature's
// present values: learnt from a batch split's training rows only (SeedContext::fit_rows), so that no test row moves
// what a training row is filled with.
#include <algorithm>
#include <cmath>
#include <glimpse/glimpse.hpp>
#include <map>

namespace {

class Impute final : public glimpse::Transform {
 public:
  enum class Strategy { mean, median, most_frequent };  // the choices' order
  static glimpse::PluginSpec spec() {
    return {.name = "impute",
            .kind = glimpse::PluginKind::transform,
            .summary = "missing values (a reader's non_finite: keep) <- the feature's mean, median or most frequent "
                       "value over the present values of the training rows (all rows without a split)",
            .reference = "mean/median/mode imputation, fitted on training rows only (as scikit-learn's SimpleImputer)",
            .params = {glimpse::ParamSpec::choice("strategy", "median", {"mean", "median", "most_frequent"},
                                                  "the statistic a missing value becomes; most_frequent takes the "
                                                  "smallest of tied values")
                           .into(&Impute::strategy_)}};
  }
  bool fits_statistics() const override { return true; }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext& context) const override {
    if (!data.is_dense())
      throw glimpse::Error("impute: expected dense data (a missing entry of a sparse row is not stored); load it "
                           "densely (e.g. the libsvm source's layout: dense)");
    const std::int32_t d = data.dim();
    const auto values = data.mutable_values();
    std::vector<std::vector<float>> present(static_cast<std::size_t>(d));
    context.for_each_fit_row(data, [&](std::int64_t i) {
      const float* x = values.data() + i * d;
      for (std::int32_t j = 0; j < d; ++j)
        if (!std::isnan(x[j])) present[static_cast<std::size_t>(j)].push_back(x[j]);
    });
    // Each feature's statistic, computed only for features with a missing value (a feature never present in the
    // training rows is refused only then).
    std::vector<float> fill(static_cast<std::size_t>(d), 0.0f);
    std::vector<bool> computed(static_cast<std::size_t>(d), false);
    std::int64_t filled = 0, rows = 0;
    for (std::int64_t i = 0; i < data.size(); ++i) {
      float* x = values.data() + i * d;
      bool any = false;
      for (std::int32_t j = 0; j < d; ++j) {
        if (!std::isnan(x[j])) continue;
        const auto f = static_cast<std::size_t>(j);
        if (!computed[f]) {
          if (present[f].empty())
            throw glimpse::Error("impute: feature " + std::to_string(j + 1) + " has no value in the " +
                                 (context.fit_rows.empty() ? "rows" : "training rows") + " to impute from");
          fill[f] = statistic(present[f]);
          computed[f] = true;
        }
        x[j] = fill[f];
        any = true;
        ++filled;
      }
      rows += any;
    }
    if (filled > 0)
      data.notes.push_back("impute (" + std::string(name_of(strategy_)) + "): filled " + std::to_string(filled) +
                           " missing values in " + std::to_string(rows) + " of " + std::to_string(data.size()) +
                           " rows");
  }

 private:
  // The statistic of a feature's present values (`v` is reordered).
  float statistic(std::vector<float>& v) const {
    switch (strategy_) {
      case Strategy::mean: {
        double sum = 0;  // in order, in double: the same bits on every machine
        for (const float x : v) sum += x;
        return static_cast<float>(sum / static_cast<double>(v.size()));
      }
      case Strategy::median: {
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        return v.size() % 2 == 1 ? v[m] : static_cast<float>((static_cast<double>(v[m - 1]) + v[m]) / 2);
      }
      case Strategy::most_frequent: {
        std::map<float, std::int64_t> counts;  // ordered: ties go to the smallest value
        for (const float x : v) ++counts[x];
        auto best = counts.begin();
        for (auto it = counts.begin(); it != counts.end(); ++it)
          if (it->second > best->second) best = it;
        return best->first;
      }
    }
    return 0.0f;
  }
  static const char* name_of(Strategy s) {
    return s == Strategy::mean ? "mean" : s == Strategy::median ? "median" : "most_frequent";
  }

  Strategy strategy_ = Strategy::median;
};

}  // namespace

GLIMPSE_PLUGIN(Impute)
