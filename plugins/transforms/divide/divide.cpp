// Divides every feature by a constant (the CSPA authors' code uses /255 for USPS and MNIST pixels).
#include <glimpse/glimpse.hpp>

namespace {

class Divide final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "divide",
            .kind = glimpse::PluginKind::transform,
            .summary = "x <- x / c",
            .reference = "the CSPA authors' code (pixels / 255, Pendigits / 100)",
            .params = {glimpse::ParamSpec::real("by", "255", "the divisor c").above(0).into(&Divide::by_)}};
  }
  void apply(glimpse::Dataset& data, const glimpse::SeedContext&) const override {
    for (auto& v : data.mutable_values()) v = static_cast<glimpse::Feature>(v / by_);
  }

 private:
  double by_ = 255;
};

}  // namespace

GLIMPSE_PLUGIN(Divide)
