// Per-feature standardisation to mean 0 and standard deviation 1 (population std), fitted on the whole
// dataset it is applied to; constant features become 0.
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

class Standardize final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "standardize",
            .kind = glimpse::PluginKind::transform,
            .summary = "x_j <- (x_j - mean_j) / std_j per feature; constant features -> 0"};
  }
  explicit Standardize(const glimpse::ParamValues&) {}
  void apply(glimpse::Dataset& data, const glimpse::SeedContext&) const override {
    if (!data.is_dense()) throw glimpse::Error("standardize: needs dense data (centring moves zeros)");
    const std::int32_t d = data.dim();
    const auto n = static_cast<double>(data.size());
    std::vector<double> mean(static_cast<std::size_t>(d), 0.0), squares(static_cast<std::size_t>(d), 0.0);
    auto values = data.mutable_values();
    for (std::size_t i = 0; i < values.size(); ++i) mean[i % d] += values[i] / n;
    for (std::size_t i = 0; i < values.size(); ++i)
      squares[i % d] += (values[i] - mean[i % d]) * (values[i] - mean[i % d]) / n;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double sd = std::sqrt(squares[i % d]);
      values[i] = sd > 0 ? static_cast<glimpse::Feature>((values[i] - mean[i % d]) / sd) : 0.0f;
    }
  }
};

}  // namespace

GLIMPSE_PLUGIN(Standardize)
