// The CSPA paper's artificial data (section 5.1): 4 classes in 2-D, n points per class from
// N(c_k, sigma I) with centres (1,1), (1,-1), (-1,1), (-1,-1). The paper writes the covariance as
// diag(sigma, sigma), so sigma is a variance by default (`sigma_is: std` reads it as a standard deviation).
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

constexpr double centres[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

class Gaussians final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "gaussians",
            .kind = glimpse::PluginKind::data_source,
            .summary = "4 Gaussian classes in 2-D centred at (+-1, +-1); rows class by class; emits p(y|x)",
            .reference = "CSPA paper (Kaneko et al. 2019), section 5.1",
            .params = {glimpse::ParamSpec::integer("n_per_class", "1000", "points per class")
                           .at_least(1)
                           .into(&Gaussians::per_class_),
                       glimpse::ParamSpec::real("sigma", "0.1", "covariance entry (see sigma_is)")
                           .above(0)
                           .into(&Gaussians::sigma_),
                       glimpse::ParamSpec::choice("sigma_is", "variance", {"variance", "std"},
                                                  "whether sigma is the variance (as the paper writes it) or the std")
                           .into(&Gaussians::sigma_is_),
                       glimpse::ParamSpec::integer("seed", "0", "generator seed (the data, not the run order)")
                           .at_least(0)
                           .into(&Gaussians::seed_)}};
  }
  void configure() { variance_ = sigma_is_ == SigmaIs::std ? sigma_ * sigma_ : sigma_; }

  glimpse::Dataset load() override {
    const std::int64_t n = 4 * per_class_;
    std::vector<glimpse::Feature> values(static_cast<std::size_t>(2 * n));
    std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
    std::vector<double> probabilities(static_cast<std::size_t>(4 * n));
    glimpse::Rng rng(glimpse::derive_key(glimpse::hash_name("gaussians"), seed_));
    const double std_dev = std::sqrt(variance_);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::int32_t>(i / per_class_);
      const double x0 = centres[k][0] + std_dev * rng.normal();
      const double x1 = centres[k][1] + std_dev * rng.normal();
      values[2 * i] = static_cast<glimpse::Feature>(x0);
      values[2 * i + 1] = static_cast<glimpse::Feature>(x1);
      labels[i] = k;
      // Equal priors: p(k|x) is proportional to exp(-||x - c_k||^2 / (2 variance)); subtract the largest
      // exponent so the normalisation cannot underflow.
      double exponents[4], largest = -1e300, total = 0.0;
      for (int c = 0; c < 4; ++c) {
        const double dx = x0 - centres[c][0], dy = x1 - centres[c][1];
        exponents[c] = -(dx * dx + dy * dy) / (2 * variance_);
        largest = std::max(largest, exponents[c]);
      }
      for (int c = 0; c < 4; ++c) total += std::exp(exponents[c] - largest);
      for (int c = 0; c < 4; ++c) probabilities[4 * i + c] = std::exp(exponents[c] - largest) / total;
    }
    auto data = glimpse::Dataset::dense(n, 2, std::move(values), std::move(labels), 4);
    data.class_probabilities = std::move(probabilities);
    return data;
  }

 private:
  enum class SigmaIs { variance, std };  // the choices' order
  std::int64_t per_class_ = 1000;
  double sigma_ = 0.1, variance_ = 0.1;
  SigmaIs sigma_is_ = SigmaIs::variance;
  std::uint64_t seed_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(Gaussians)
