// Candidate label sets: the true label plus s - 1 others drawn uniformly without replacement (the partial-label
// paper's protocol); s fixed, or uniform in [size, max_size] per round. Or, with a co-occurrence matrix Q, each
// other label j joins the set of true label y independently with probability Q[y][j], because real ambiguity
// is rarely uniform (a "3" is confused with an "8", not with a "1"). With per_row, a row keeps the set drawn the
// first time it comes for the whole run, as the partial-label group's code fixes one set per instance per run
// (it draws its instances with replacement: protocol order with_replacement).
#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/matrix_file.hpp>
#include <numeric>
#include <optional>

namespace {

class CandidateSetOracle final : public glimpse::FeedbackOracle {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "candidate_set",
            .kind = glimpse::PluginKind::oracle,
            .summary =
                "returns a set of labels holding the true one plus size-1 others drawn uniformly, or drawn "
                "from a co-occurrence matrix",
            .reference = "Bhattacharjee & Manwani, PAKDD 2020, section 5",
            .params = {glimpse::ParamSpec::integer("size", "2", "labels in the set, the true one included (at most K)")
                           .at_least(1)
                           .into(&CandidateSetOracle::size_),
                       glimpse::ParamSpec::integer("max_size", "0",
                                                   "0: always `size`; else a size drawn uniformly in [size, max_size]")
                           .at_least(0)
                           .into(&CandidateSetOracle::max_size_),
                       glimpse::ParamSpec::path("cooccurrence",
                                                "K x K matrix file: label j joins true label y's set with "
                                                "probability row y, column j (diagonal ignored); size and max_size "
                                                "then do not apply")
                           .into(&CandidateSetOracle::cooccurrence_file_),
                       glimpse::ParamSpec::boolean("per_row", false,
                                                   "true: each row keeps the set drawn the first time it comes, for "
                                                   "the whole run (false: a fresh set every round)")
                           .into(&CandidateSetOracle::per_row_)},
            .produces = glimpse::FeedbackKind::candidate_set};
  }
  void configure() {
    if (max_size_ != 0 && max_size_ < size_) throw glimpse::Error("max_size must be 0 or at least size");
    if (!cooccurrence_file_.empty()) cooccurrence_ = glimpse::readers::read_probability_matrix(cooccurrence_file_);
  }
  // A set of K labels holds every label: it tells the learner nothing about the true one.
  std::vector<std::string> notes(const glimpse::ProblemShape& shape) const override {
    if (cooccurrence_ || shape.K <= 0) return {};
    const std::string k = std::to_string(shape.K);
    if (size_ >= shape.K)
      return {"sets of size " + std::to_string(size_) + " on K = " + k +
              " classes hold every label, so they carry no information about the true one"};
    if (max_size_ >= shape.K)
      return {"sizes up to max_size " + std::to_string(max_size_) + " on K = " + k +
              " classes: the rounds drawing size " + k + " get every label, which says nothing"};
    return {};
  }
  void reset(const glimpse::ProblemShape& shape) override {
    if (cooccurrence_) glimpse::readers::require_square(*cooccurrence_, shape.K);
    if (!cooccurrence_ && (size_ > shape.K || max_size_ > shape.K))
      throw glimpse::Error("candidate set size " + std::to_string(std::max(size_, max_size_)) +
                           " exceeds K = " + std::to_string(shape.K));
    others_.resize(static_cast<std::size_t>(shape.K));
    set_.reserve(static_cast<std::size_t>(shape.K));
    if (per_row_) {  // room for every row's set, so that rounds never allocate
      kept_.assign(static_cast<std::size_t>(shape.n * shape.K), 0);
      kept_size_.assign(static_cast<std::size_t>(shape.n), 0);
    }
  }
  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction&,
                            glimpse::Rng& rng) override {
    if (!per_row_) return draw(truth, rng);
    const auto row = static_cast<std::size_t>(truth.row);
    const std::size_t k = others_.size();
    if (kept_size_[row] == 0) {
      draw(truth, rng);
      std::copy(set_.begin(), set_.end(), kept_.begin() + static_cast<std::ptrdiff_t>(row * k));
      kept_size_[row] = static_cast<std::int32_t>(set_.size());
    }
    return glimpse::CandidateSetFeedback{
        std::span<const std::int32_t>(kept_.data() + row * k, static_cast<std::size_t>(kept_size_[row]))};
  }

 private:
  // A fresh set in set_: the true label first.
  glimpse::Feedback draw(const glimpse::RoundTruth& truth, glimpse::Rng& rng) {
    const auto k = static_cast<std::int32_t>(others_.size());
    set_.clear();
    set_.push_back(truth.label);
    if (cooccurrence_) {
      // One draw per label, whatever came before, so a label's membership does not depend on the others'.
      for (std::int32_t label = 0; label < k; ++label) {
        const double u = rng.uniform();
        if (label != truth.label && u < cooccurrence_->at(truth.label, label)) set_.push_back(label);
      }
      return glimpse::CandidateSetFeedback{set_};
    }
    std::int64_t size = size_;
    if (max_size_ > size_)
      size += static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(max_size_ - size_ + 1)));
    // The K - 1 wrong labels, then a partial Fisher-Yates pass picks size - 1 of them.
    std::int32_t n = 0;
    for (std::int32_t label = 0; label < k; ++label)
      if (label != truth.label) others_[static_cast<std::size_t>(n++)] = label;
    for (std::int64_t i = 0; i + 1 < size; ++i) {
      const auto j = i + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n - i)));
      std::swap(others_[static_cast<std::size_t>(i)], others_[static_cast<std::size_t>(j)]);
      set_.push_back(others_[static_cast<std::size_t>(i)]);
    }
    return glimpse::CandidateSetFeedback{set_};
  }

  std::int64_t size_ = 2, max_size_ = 0;
  bool per_row_ = false;
  std::filesystem::path cooccurrence_file_;
  std::optional<glimpse::readers::MatrixFile> cooccurrence_;
  std::vector<std::int32_t> others_, set_;
  std::vector<std::int32_t> kept_, kept_size_;  // per_row: row r's set at kept_[r K ...], its size (0: none yet)
};

}  // namespace

GLIMPSE_PLUGIN(CandidateSetOracle)
