// Per-feature standardisation to mean 0 and standard deviation 1 (population std), fitted on the rows it may
// learn from (all of them, or a batch split's training part: SeedContext::fit_rows); constant features become 0.
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

class Standardize final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "standardize",
            .kind = glimpse::PluginKind::transform,
            .summary =
                "x_j <- (x_j - mean_j) / std_j per feature (statistics from a batch split's training rows); "
                "constant features -> 0"};
  }
  explicit Standardize(const glimpse::ParamValues&) {}
  bool fits_statistics() const override { return true; }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext& context) const override {
    if (!data.is_dense()) throw glimpse::Error("standardize: needs dense data (centring moves zeros)");
    const std::int32_t d = data.dim();
    std::int64_t fitted = 0;
    context.for_each_fit_row(data, [&](std::int64_t) { ++fitted; });
    const auto n = static_cast<double>(fitted);
    std::vector<double> mean(static_cast<std::size_t>(d), 0.0), squares(static_cast<std::size_t>(d), 0.0);
    auto values = data.mutable_values();
    context.for_each_fit_row(data, [&](std::int64_t row) {
      for (std::int32_t j = 0; j < d; ++j) mean[j] += values[row * d + j] / n;
    });
    context.for_each_fit_row(data, [&](std::int64_t row) {
      for (std::int32_t j = 0; j < d; ++j) {
        const double centred = values[row * d + j] - mean[j];
        squares[j] += centred * centred / n;
      }
    });
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double sd = std::sqrt(squares[i % d]);
      values[i] = sd > 0 ? static_cast<glimpse::Feature>((values[i] - mean[i % d]) / sd) : 0.0f;
    }
  }
};

}  // namespace

GLIMPSE_PLUGIN(Standardize)
