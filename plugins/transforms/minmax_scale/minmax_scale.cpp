// Per-feature min-max scaling to [lower, upper], fitted on the whole file as LIBSVM's svm-scale made the
// ".scale" files the papers used (docs/datasets.md: the papers' numbers depend on it), or in batch protocols on a
// split's training part (SeedContext::fit_rows).
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <limits>

namespace {

class MinmaxScale final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "minmax_scale",
            .kind = glimpse::PluginKind::transform,
            .summary =
                "x_j <- lower + (upper - lower)(x_j - min_j)/(max_j - min_j) per feature (extremes from a batch "
                "split's training rows); constant features -> 0",
            .reference = "LIBSVM's svm-scale (the papers' .scale files)",
            .params = {
                glimpse::ParamSpec::real("lower", "-1", "value of each feature's minimum").into(&MinmaxScale::lower_),
                glimpse::ParamSpec::real("upper", "1", "value of each feature's maximum").into(&MinmaxScale::upper_)}};
  }
  void configure() const {
    if (!(lower_ < upper_))
      throw glimpse::Error("expected lower < upper, got " + std::to_string(lower_) + " and " + std::to_string(upper_));
  }
  bool fits_statistics() const override { return true; }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext& context) const override {
    if (!data.is_dense())
      throw glimpse::Error(
          "minmax_scale: sparse data would become dense (zeros move); load it densely "
          "(e.g. the libsvm source's layout: dense)");
    // Row by row, so every inner loop runs over contiguous memory and vectorises; the same arithmetic as
    // per-element code. The extremes are kept as floats (exact: the values are floats).
    const std::int32_t d = data.dim();
    std::vector<float> lo(static_cast<std::size_t>(d), std::numeric_limits<float>::infinity());
    std::vector<float> hi(static_cast<std::size_t>(d), -std::numeric_limits<float>::infinity());
    const auto values = data.mutable_values();
    context.for_each_fit_row(data, [&](std::int64_t i) {
      const float* __restrict x = values.data() + i * d;
      float* __restrict low = lo.data();
      float* __restrict high = hi.data();
      for (std::int32_t j = 0; j < d; ++j) {
        low[j] = x[j] < low[j] ? x[j] : low[j];
        high[j] = x[j] > high[j] ? x[j] : high[j];
      }
    });
    std::vector<double> width(static_cast<std::size_t>(d));
    std::vector<std::int32_t> constant;  // set to 0; divided by 1 meanwhile, so the main loop has no branch
    for (std::int32_t j = 0; j < d; ++j) {
      width[j] = static_cast<double>(hi[j]) - lo[j];
      if (!(width[j] > 0)) constant.push_back(j), width[j] = 1.0;
    }
    const double span = upper_ - lower_;
    for (std::int64_t i = 0; i < data.size(); ++i) {
      float* __restrict x = values.data() + i * d;
      for (std::int32_t j = 0; j < d; ++j)
        x[j] = static_cast<glimpse::Feature>(lower_ + span * (static_cast<double>(x[j]) - lo[j]) / width[j]);
      for (const std::int32_t j : constant) x[j] = 0.0f;
    }
  }

 private:
  double lower_ = -1, upper_ = 1;
};

}  // namespace

GLIMPSE_PLUGIN(MinmaxScale)
