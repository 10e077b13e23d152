// Scales every row to unit Euclidean norm (rows of norm 0 are left as they are), as the CSPA paper does.
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

class L2Normalize final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "l2_normalize",
            .kind = glimpse::PluginKind::transform,
            .summary = "x <- x / ||x|| for every row with ||x|| > 0",
            .reference = "CSPA paper section 5 (each feature vector normalised to unit length)"};
  }
  explicit L2Normalize(const glimpse::ParamValues&) {}
  void apply(glimpse::Dataset& data, const glimpse::SeedContext&) const override {
    auto values = data.mutable_values();
    for (std::int64_t i = 0; i < data.size(); ++i) {
      const glimpse::Instance row = data.row(i);
      const double norm = std::sqrt(row.squared_norm());
      if (norm <= 0.0) continue;
      glimpse::Feature* begin = values.data() + (row.values - values.data());
      for (std::int32_t j = 0; j < row.nnz; ++j) begin[j] = static_cast<glimpse::Feature>(begin[j] / norm);
    }
  }
};

}  // namespace

GLIMPSE_PLUGIN(L2Normalize)
