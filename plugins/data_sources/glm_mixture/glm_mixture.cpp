// The selective-sampling paper's synthetic data (Agarwal, ICML 2013, section 5 and supplement
// A): K cluster means v_k ~ N(0, I/d0) in d0 dimensions, embedded in D dimensions by the
// first d0 columns of a Haar-random rotation; each x picks a cluster uniformly and adds N(0, (s/sqrt(D))^2 I)
// noise; labels come from a GLM with W* = the cluster means: multinomial logit p_i ~ exp(x.w_i), or the
// mismatch model p_i ~ (x.w_i)^2. p(y|x) is emitted so regret against the Bayes predictor can be measured.
// Trials: with per_trial = none one dataset is drawn from `seed` and shared by every run (repeat trials with
// resample_labels); with rows, the problem (rotation, means W*) comes from `seed` and each of the protocol's
// seeds draws its own instances and labels, the paper's independent trials; with all, each seed draws
// everything.
#include <Eigen/Dense>
#include <cmath>
#include <glimpse/glimpse.hpp>

namespace {

class GlmMixture final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {
        .name = "glm_mixture",
        .kind = glimpse::PluginKind::data_source,
        .summary =
            "K Gaussian clusters in D dimensions, labels from a multinomial GLM (logit or mismatch); emits p(y|x)",
        .reference = "Agarwal, Selective sampling ... (ICML 2013) section 5, supplement A",
        .params = {
            glimpse::ParamSpec::integer("num_classes", "5", "K").at_least(2).into(&GlmMixture::k_),
            glimpse::ParamSpec::integer("dim", "1000", "D, the ambient dimension").at_least(1).into(&GlmMixture::dim_),
            glimpse::ParamSpec::integer("latent_dim", "10", "d0, the dimension of the cluster means")
                .at_least(1)
                .into(&GlmMixture::latent_),
            glimpse::ParamSpec::integer("n", "10000", "rows").at_least(1).into(&GlmMixture::n_),
            glimpse::ParamSpec::choice("link", "logistic", {"logistic", "mismatch"},
                                       "logistic: p_i ~ exp(x.w_i); mismatch: p_i ~ (x.w_i)^2")
                .into(&GlmMixture::link_),
            glimpse::ParamSpec::real("noise", "10", "s: the noise std per coordinate is s/sqrt(D)")
                .at_least(0)
                .into(&GlmMixture::noise_),
            glimpse::ParamSpec::real("centred_fraction", "0",
                                     "fraction of rows drawn as noise around the origin (robustness check)")
                .at_least(0)
                .at_most(1)
                .into(&GlmMixture::centred_),
            glimpse::ParamSpec::integer("seed", "0", "generator seed (the data, not the run order)")
                .at_least(0)
                .into(&GlmMixture::seed_),
            glimpse::ParamSpec::choice("per_trial", "none", {"none", "rows", "all"},
                                       "what each of the protocol's seeds draws afresh: nothing (one shared "
                                       "dataset), the rows (instances and labels; W* from seed), or all")
                .into(&GlmMixture::per_trial_)}};
  }
  void configure() {
    if (latent_ > dim_) throw glimpse::Error("latent_dim must not exceed dim");
  }

  glimpse::Dataset load() override { return draw(glimpse::derive_key(glimpse::hash_name("glm_mixture"), seed_), 0); }
  bool per_seed() const override { return per_trial_ != "none"; }
  glimpse::Dataset load_for_seed(const glimpse::SeedContext& trial) const override {
    const std::uint64_t problem = glimpse::derive_key(glimpse::hash_name("glm_mixture"), seed_);
    return per_trial_ == "all" ? draw(trial.key, trial.key) : draw(problem, trial.key);
  }

 private:
  // The problem (rotation and means) from `problem_key`; the rows from `rows_key`, or from the same stream
  // right after the problem when it is 0 (a single shared draw, as before per_trial existed).
  glimpse::Dataset draw(std::uint64_t problem_key, std::uint64_t rows_key) const {
    glimpse::Rng rng(problem_key);
    // Haar-random D x d0 orthonormal columns: QR of a Gaussian matrix, columns' signs fixed by R's diagonal.
    Eigen::MatrixXd gaussian(dim_, latent_);
    for (Eigen::Index i = 0; i < gaussian.size(); ++i) gaussian.data()[i] = rng.normal();
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(gaussian);
    Eigen::MatrixXd rotation = qr.householderQ() * Eigen::MatrixXd::Identity(dim_, latent_);
    const Eigen::MatrixXd r = qr.matrixQR().topRows(latent_).triangularView<Eigen::Upper>();
    for (std::int32_t j = 0; j < latent_; ++j)
      if (r(j, j) < 0) rotation.col(j) *= -1.0;
    Eigen::MatrixXd means(k_, dim_);  // W*: row k = mu_k = U v_k
    for (std::int32_t c = 0; c < k_; ++c) {
      Eigen::VectorXd v(latent_);
      for (std::int32_t j = 0; j < latent_; ++j) v[j] = rng.normal() / std::sqrt(static_cast<double>(latent_));
      means.row(c) = (rotation * v).transpose();
    }
    if (rows_key != 0) rng = glimpse::Rng(rows_key);
    const double noise_std = noise_ / std::sqrt(static_cast<double>(dim_));
    std::vector<glimpse::Feature> values(static_cast<std::size_t>(n_ * dim_));
    std::vector<std::int32_t> labels(static_cast<std::size_t>(n_));
    std::vector<double> probabilities(static_cast<std::size_t>(n_ * k_));
    Eigen::VectorXd x(dim_), scores(k_);
    for (std::int64_t i = 0; i < n_; ++i) {
      const bool centred = centred_ > 0 && rng.uniform() < centred_;
      const auto cluster = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(k_)));
      for (std::int32_t j = 0; j < dim_; ++j) x[j] = (centred ? 0.0 : means(cluster, j)) + noise_std * rng.normal();
      scores = means * x;
      double* p = probabilities.data() + i * k_;
      double total = 0.0;
      if (link_ == Link::mismatch) {
        for (std::int32_t c = 0; c < k_; ++c) total += p[c] = scores[c] * scores[c];
        if (total <= 0.0) std::fill(p, p + k_, 1.0), total = k_;
      } else {
        const double top = scores.maxCoeff();
        for (std::int32_t c = 0; c < k_; ++c) total += p[c] = std::exp(scores[c] - top);
      }
      for (std::int32_t c = 0; c < k_; ++c) p[c] /= total;
      labels[i] = rng.sample({p, static_cast<std::size_t>(k_)});
      for (std::int32_t j = 0; j < dim_; ++j)
        values[static_cast<std::size_t>(i * dim_ + j)] = static_cast<glimpse::Feature>(x[j]);
    }
    auto data = glimpse::Dataset::dense(n_, dim_, std::move(values), std::move(labels), k_);
    data.class_probabilities = std::move(probabilities);
    return data;
  }

  enum class Link { logistic, mismatch };  // the choices' order
  std::int32_t k_ = 5, dim_ = 1000, latent_ = 10;
  std::int64_t n_ = 10000;
  Link link_ = Link::logistic;
  double noise_ = 10, centred_ = 0;
  std::uint64_t seed_ = 0;
  std::string per_trial_;
};

}  // namespace

GLIMPSE_PLUGIN(GlmMixture)
