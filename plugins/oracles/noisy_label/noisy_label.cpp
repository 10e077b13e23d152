// Noisy labels: the oracle returns a label drawn from row y of a row-stochastic noise matrix N (N[y][j] =
// P(reported j | true y)): uniform flips (rate spread evenly over the other K-1 labels), pairwise flips (y to
// y+1 mod K with probability rate), or a matrix file. Full-feedback learners accept it; metrics still score
// against the true label. Beyond the papers: an extension of this project's, beside COPA.
#include <cmath>
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/matrix_file.hpp>
#include <optional>

namespace {

class NoisyLabelOracle final : public glimpse::FeedbackOracle {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "noisy_label",
            .kind = glimpse::PluginKind::oracle,
            .summary = "returns a label drawn from a noise matrix given the true one (uniform, pairwise or a file)",
            .reference = "none: an extension of this project's, beside COPA",
            .params = {glimpse::ParamSpec::choice("model", "uniform", {"uniform", "pairwise", "matrix"},
                                                  "uniform: a wrong label uniformly with probability rate; "
                                                  "pairwise: y+1 (mod K) with probability rate; matrix: the file")
                           .into(&NoisyLabelOracle::model_),
                       glimpse::ParamSpec::real("rate", "0.2", "flip probability (uniform and pairwise models)")
                           .at_least(0)
                           .at_most(1)
                           .into(&NoisyLabelOracle::rate_),
                       glimpse::ParamSpec::path("matrix",
                                                "K x K row-stochastic noise matrix file (model matrix): "
                                                "row y, column j = P(reported j | true y)")
                           .into(&NoisyLabelOracle::matrix_file_)},
            .produces = glimpse::FeedbackKind::noisy_label};
  }

  void configure() {
    const auto& file = matrix_file_;
    if (model_ == "matrix") {
      if (file.empty()) throw glimpse::Error("model 'matrix' needs the matrix parameter (a file)");
      file_ = glimpse::readers::read_probability_matrix(file);
      for (std::int32_t r = 0; r < file_->rows; ++r) {
        double sum = 0.0;
        for (std::int32_t c = 0; c < file_->cols; ++c) sum += file_->at(r, c);
        if (std::abs(sum - 1.0) > 1e-6)
          throw glimpse::Error(
              file.string() + ":" + std::to_string(file_->row_lines[static_cast<std::size_t>(r)]),
              "row sums to " + glimpse::readers::format_number(sum) + "; a noise matrix row must sum to 1");
      }
    } else if (!file.empty()) {
      throw glimpse::Error("the matrix parameter needs model 'matrix' (model is '" + model_ + "')");
    }
  }

  void reset(const glimpse::ProblemShape& shape) override {
    const auto k = static_cast<std::size_t>(shape.K);
    noise_.assign(k * k, 0.0);
    if (file_) {
      glimpse::readers::require_square(*file_, shape.K);
      noise_ = file_->values;
    } else if (model_ == "uniform") {
      for (std::size_t y = 0; y < k; ++y)
        for (std::size_t j = 0; j < k; ++j)
          noise_[y * k + j] = j == y ? 1.0 - rate_ : (k > 1 ? rate_ / static_cast<double>(k - 1) : 0.0);
      if (k == 1) noise_[0] = 1.0;
    } else {  // pairwise
      for (std::size_t y = 0; y < k; ++y) {
        noise_[y * k + y] += 1.0 - rate_;
        noise_[y * k + (y + 1) % k] += rate_;
      }
    }
    classes_ = shape.K;
  }

  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction&,
                            glimpse::Rng& rng) override {
    const std::span<const double> row(noise_.data() + static_cast<std::size_t>(truth.label) * classes_,
                                      static_cast<std::size_t>(classes_));
    return glimpse::NoisyLabelFeedback{static_cast<std::int32_t>(rng.sample(row))};
  }

 private:
  std::string model_;
  double rate_ = 0.2;
  std::filesystem::path matrix_file_;
  std::optional<glimpse::readers::MatrixFile> file_;
  std::vector<double> noise_;  // K x K, row-major
  std::int32_t classes_ = 0;
};

}  // namespace

GLIMPSE_PLUGIN(NoisyLabelOracle)
