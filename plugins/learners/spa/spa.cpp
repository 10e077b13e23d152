// SPA: support-class passive-aggressive learner with full feedback.
#include <glimpse/algorithms/support_class_pa.hpp>
#include <glimpse/glimpse.hpp>
#include <glimpse/linear_model.hpp>

namespace {

template <class T>
class Spa final : public glimpse::LinearLearner<T> {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "spa",
            .kind = glimpse::PluginKind::learner,
            .summary = "support-class PA: smallest change making s_y - s_i >= 1 for every i != y (exact closed form)",
            .reference = "Matsushima et al., SDM 2010; CSPA paper (Kaneko et al. 2019) Algorithm 1, correct branch",
            .params = {glimpse::precision_param()},
            .accepts = {glimpse::FeedbackKind::label}};
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction&, const glimpse::Feedback& feedback) override {
    const std::int32_t y = glimpse::full_label(feedback);
    if (y < 0 || !step_.compute(model_.scores(), y, x.squared_norm())) return;
    model_.add_to_rows(step_.tau(), x);
  }
  void reset_state(const glimpse::ProblemShape& shape, std::uint64_t) override { step_.reset(shape.K); }

 private:
  using glimpse::LinearLearner<T>::model_;
  glimpse::algorithms::SupportClassPa step_;
};

}  // namespace

GLIMPSE_PRECISION_PLUGIN(Spa)
