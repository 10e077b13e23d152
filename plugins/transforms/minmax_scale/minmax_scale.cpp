// Per-feature min-max scaling to [lower, upper], fitted on the whole file as LIBSVM's svm-scale made the
// ".scale" files the papers used (DATASETS.md: the papers' numbers depend on it).
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <limits>

namespace {

class MinmaxScale final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "minmax_scale",
        .kind = glimpse::PluginKind::transform,
        .summary = "x_j <- lower + (upper - lower)(x_j - min_j)/(max_j - min_j) per feature; constant features -> 0",
        .reference = "ALGORITHMS.md section 1.1 (svm-scale)",
        .params = {glimpse::ParamSpec::real("lower", "-1", "value of each feature's minimum"),
                   glimpse::ParamSpec::real("upper", "1", "value of each feature's maximum")}};
  }
  explicit MinmaxScale(const glimpse::ParamValues& params)
      : lower_(params.real("lower")), upper_(params.real("upper")) {
    if (!(lower_ < upper_))
      throw glimpse::Error("expected lower < upper, got " + std::to_string(lower_) + " and " + std::to_string(upper_));
  }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext&) const override {
    if (!data.is_dense())
      throw glimpse::Error(
          "minmax_scale: sparse data would become dense (zeros move); load it densely "
          "(e.g. the libsvm source's layout: dense)");
    const std::int32_t d = data.dim();
    std::vector<double> lo(static_cast<std::size_t>(d), std::numeric_limits<double>::infinity());
    std::vector<double> hi(static_cast<std::size_t>(d), -std::numeric_limits<double>::infinity());
    auto values = data.mutable_values();
    for (std::int64_t i = 0; i < data.size(); ++i)
      for (std::int32_t j = 0; j < d; ++j) {
        const double v = values[static_cast<std::size_t>(i * d + j)];
        lo[j] = std::min(lo[j], v);
        hi[j] = std::max(hi[j], v);
      }
    for (std::int64_t i = 0; i < data.size(); ++i)
      for (std::int32_t j = 0; j < d; ++j) {
        auto& v = values[static_cast<std::size_t>(i * d + j)];
        v = hi[j] > lo[j] ? static_cast<glimpse::Feature>(lower_ + (upper_ - lower_) * (v - lo[j]) / (hi[j] - lo[j]))
                          : 0.0f;
      }
  }

 private:
  double lower_, upper_;
};

}  // namespace

GLIMPSE_PLUGIN(MinmaxScale)
