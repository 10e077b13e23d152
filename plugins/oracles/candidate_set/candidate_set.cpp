// Candidate label sets: the true label plus s - 1 others drawn uniformly without replacement (the partial-label
// paper's protocol); s fixed, or uniform in [size, max_size] per round. Or, with a co-occurrence matrix Q, each
// other label j joins the set of true label y independently with probability Q[y][j], because real ambiguity
// is rarely uniform (a "3" is confused with an "8", not with a "1").
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
            .reference = "Bhattacharjee & Manwani, PAKDD 2020, section 5; ALGORITHMS.md 9.3",
            .params = {glimpse::ParamSpec::integer("size", "2", "labels in the set, the true one included (at most K)")
                           .at_least(1),
                       glimpse::ParamSpec::integer("max_size", "0",
                                                   "0: always `size`; else a size drawn uniformly in [size, max_size]")
                           .at_least(0),
                       glimpse::ParamSpec::path("cooccurrence",
                                                "K x K matrix file: label j joins true label y's set with "
                                                "probability row y, column j (diagonal ignored); size and max_size "
                                                "then do not apply")},
            .produces = glimpse::FeedbackKind::candidate_set};
  }
  explicit CandidateSetOracle(const glimpse::ParamValues& params)
      : size_(params.integer("size")), max_size_(params.integer("max_size")) {
    if (max_size_ != 0 && max_size_ < size_) throw glimpse::Error("max_size must be 0 or at least size");
    if (const auto file = params.path("cooccurrence"); !file.empty())
      cooccurrence_ = glimpse::readers::read_probability_matrix(file);
  }
  void reset(const glimpse::ProblemShape& shape) override {
    if (cooccurrence_) glimpse::readers::require_square(*cooccurrence_, shape.K);
    if (!cooccurrence_ && (size_ > shape.K || max_size_ > shape.K))
      throw glimpse::Error("candidate set size " + std::to_string(std::max(size_, max_size_)) +
                           " exceeds K = " + std::to_string(shape.K));
    others_.resize(static_cast<std::size_t>(shape.K));
    set_.reserve(static_cast<std::size_t>(shape.K));
  }
  glimpse::Feedback respond(const glimpse::Instance&, const glimpse::RoundTruth& truth, const glimpse::Prediction&,
                            glimpse::Rng& rng) override {
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

 private:
  std::int64_t size_, max_size_;
  std::optional<glimpse::readers::MatrixFile> cooccurrence_;
  std::vector<std::int32_t> others_, set_;
};

}  // namespace

GLIMPSE_PLUGIN(CandidateSetOracle)
