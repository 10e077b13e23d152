// Appends a constant feature (d -> d + 1), as Vowpal Wabbit does by default: linear learners then fit an
// offset per class. Put it after any scaling or normalisation, so the constant keeps its value.
#include <glimpse/glimpse.hpp>

namespace {

class Bias final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "bias",
            .kind = glimpse::PluginKind::transform,
            .summary = "x <- (x, c): one more feature, constant c in every row",
            .reference = "issue 13 (Vowpal Wabbit's constant feature)",
            .params = {glimpse::ParamSpec::real("value", "1", "the constant c").above(0).into(&Bias::value_)}};
  }

  void apply(glimpse::Dataset& data, const glimpse::SeedContext&) const override {
    const std::int64_t n = data.size();
    const std::int32_t d = data.dim();
    std::vector<std::int32_t> labels(data.labels().begin(), data.labels().end());
    glimpse::Dataset out;
    if (data.is_dense()) {
      std::vector<glimpse::Feature> values;
      values.reserve(static_cast<std::size_t>(n * (d + 1)));
      for (std::int64_t i = 0; i < n; ++i) {
        const auto row = data.row(i).stored_values();
        values.insert(values.end(), row.begin(), row.end());
        values.push_back(value_);
      }
      out = glimpse::Dataset::dense(n, d + 1, std::move(values), std::move(labels), data.num_classes());
    } else {
      // The new index d is the largest, so every row's indices stay sorted.
      std::vector<std::int64_t> offsets{0};
      std::vector<std::int32_t> indices;
      std::vector<glimpse::Feature> values;
      offsets.reserve(static_cast<std::size_t>(n + 1));
      indices.reserve(static_cast<std::size_t>(data.stored_values() + n));
      values.reserve(indices.capacity());
      for (std::int64_t i = 0; i < n; ++i) {
        const glimpse::Instance row = data.row(i);
        indices.insert(indices.end(), row.stored_indices().begin(), row.stored_indices().end());
        values.insert(values.end(), row.stored_values().begin(), row.stored_values().end());
        indices.push_back(d);
        values.push_back(value_);
        offsets.push_back(static_cast<std::int64_t>(values.size()));
      }
      out = glimpse::Dataset::sparse(d + 1, std::move(offsets), std::move(indices), std::move(values),
                                     std::move(labels), data.num_classes());
    }
    out.take_descriptions_from(data);
    data = std::move(out);
  }

 private:
  glimpse::Feature value_ = 1;
};

}  // namespace

GLIMPSE_PLUGIN(Bias)
