// The Gaussian empirical kernel map of the CSPA paper's nonlinear experiments:
// phi(x)_j = exp(-||x - b_j||^2 / g) over a support set b_1..b_B, then phi / ||phi||. By default the support
// set is the first B rows of each trial's shuffled stream, growing during the first B rounds as in the
// authors' code (the row at stream position p sees only b_1..b_(p+1)); so the map is computed per seed.
// phi is computed and normalised in double and only then stored in float: a kernel value cast to float first
// underflows to 0 below about 1.4e-45, which at narrow widths left whole rows with phi = 0.
#include <Eigen/Core>
#include <cmath>
#include <glimpse/glimpse.hpp>
#include <limits>
#include <sstream>

namespace {

class RbfSupport final : public glimpse::Transform {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "rbf_support",
            .kind = glimpse::PluginKind::transform,
            .revision = 2,  // 2: phi in double, shifted by the nearest support row, before the cast to float
            .summary = "Gaussian kernel map over B support rows: phi_j(x) = exp(-||x - b_j||^2 / g), normalised",
            .reference = "CSPA paper (Kaneko et al. 2019) section 5.2.2",
            .params = {
                glimpse::ParamSpec::real("g", "1", "kernel width g in exp(-||x - b||^2 / g)")
                    .above(0)
                    .into(&RbfSupport::width_),
                glimpse::ParamSpec::integer("size", "700", "support rows B (all rows when the data has fewer)")
                    .at_least(1)
                    .into(&RbfSupport::size_),
                glimpse::ParamSpec::choice("support", "stream_prefix", {"stream_prefix", "file_prefix"},
                                           "the first B rows of each trial's stream, or of the file")
                    .into(&RbfSupport::support_),
                glimpse::ParamSpec::boolean("grow", true,
                                            "stream_prefix only: rows among the first B of the stream see "
                                            "only the support rows that arrived before or with them")
                    .into(&RbfSupport::grow_),
                glimpse::ParamSpec::boolean("normalize", true,
                                            "scale phi(x) to unit norm; computed in double and shifted by the nearest "
                                            "support row, so no row underflows. Unnormalised values below about "
                                            "1.4e-45 (||x - b||^2 > 103 g) are stored as 0; rows left all zero are "
                                            "reported")
                    .into(&RbfSupport::normalize_)}};
  }
  bool per_seed() const override { return from_stream(); }

  void apply(glimpse::Dataset& data, const glimpse::SeedContext& seed) const override {
    if (!data.is_dense()) throw glimpse::Error("rbf_support: needs dense data");
    const std::int64_t n = data.size();
    const std::int32_t d = data.dim();
    const auto b = static_cast<std::int32_t>(std::min<std::int64_t>(size_, n));
    using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> x(
        data.mutable_values().data(), n, d);
    // Support rows, and each row's position in the stream (for growth).
    std::vector<std::int64_t> support(static_cast<std::size_t>(b));
    std::vector<std::int64_t> position(static_cast<std::size_t>(n), n);
    const auto order = from_stream() ? seed.order_of(data) : std::span<const std::int64_t>{};
    for (std::int32_t j = 0; j < b; ++j) support[j] = from_stream() ? order[j] : j;
    if (from_stream() && grow_)
      for (std::int64_t p = 0; p < b; ++p) position[static_cast<std::size_t>(order[p])] = p;
    Matrix points(b, d);
    for (std::int32_t j = 0; j < b; ++j) points.row(j) = x.row(support[j]).cast<double>();
    const Eigen::VectorXd point_norms = points.rowwise().squaredNorm();

    std::vector<glimpse::Feature> phi(static_cast<std::size_t>(n * b));
    std::vector<double> squared(static_cast<std::size_t>(b)), kernel(static_cast<std::size_t>(b));
    std::int64_t all_zero_rows = 0;
    constexpr std::int64_t block = 1024;  // rows per GEMM: bounded memory, full speed
    for (std::int64_t start = 0; start < n; start += block) {
      const std::int64_t rows = std::min(block, n - start);
      const Matrix xb = x.middleRows(start, rows).cast<double>();
      const Eigen::VectorXd row_norms = xb.rowwise().squaredNorm();
      const Matrix cross = xb * points.transpose();
      for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t row = start + i;
        const auto visible =
            static_cast<std::int32_t>(std::min<std::int64_t>(b, position[static_cast<std::size_t>(row)] + 1));
        double nearest = std::numeric_limits<double>::infinity();
        for (std::int32_t j = 0; j < visible; ++j) {
          // Expanded ||x - b||^2; rounding can make it slightly negative for x = b.
          squared[j] = std::max(0.0, row_norms[i] + point_norms[j] - 2.0 * cross(i, j));
          nearest = std::min(nearest, squared[j]);
        }
        // Normalised phi is the same for exp(-(d^2 - c) / g) with any constant c: taking c = the nearest support
        // row's d^2 makes the largest value 1, so no row loses its map to underflow at a narrow width g.
        const double shift = normalize_ ? nearest : 0.0;
        double norm = 0.0;
        for (std::int32_t j = 0; j < b; ++j) {
          kernel[j] = j < visible ? std::exp(-(squared[j] - shift) / width_) : 0.0;
          norm += kernel[j] * kernel[j];
        }
        const double scale = normalize_ && norm > 0.0 ? 1.0 / std::sqrt(norm) : 1.0;
        glimpse::Feature* out = phi.data() + row * b;
        bool any = false;
        for (std::int32_t j = 0; j < b; ++j) {
          out[j] = static_cast<glimpse::Feature>(kernel[j] * scale);
          any = any || out[j] != 0.0f;
        }
        if (!any) ++all_zero_rows;
      }
    }
    std::vector<std::int32_t> labels(data.labels().begin(), data.labels().end());
    glimpse::Dataset mapped = glimpse::Dataset::dense(n, b, std::move(phi), std::move(labels), data.num_classes());
    mapped.take_descriptions_from(data);
    data = std::move(mapped);
    if (all_zero_rows > 0) {
      std::ostringstream note;
      note << "rbf_support: " << all_zero_rows << " of " << n << " rows have an all-zero kernel map (every "
           << "exp(-||x - b||^2 / g) below float's smallest value at g = " << width_
           << "); normalize true keeps them, or widen g";
      data.notes.push_back(note.str());
    }
  }

 private:
  enum class Support { stream_prefix, file_prefix };  // the choices' order
  bool from_stream() const noexcept { return support_ == Support::stream_prefix; }
  double width_ = 1;
  std::int64_t size_ = 700;
  Support support_ = Support::stream_prefix;
  bool grow_ = true, normalize_ = true;
};

}  // namespace

GLIMPSE_PLUGIN(RbfSupport)
