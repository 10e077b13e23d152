// Key functions of the plugin interfaces (their typeinfo lives here, shared by host and plugins) and names.
#include "glimpse/interfaces.hpp"

#include "glimpse/error.hpp"

namespace glimpse {

PluginObject::~PluginObject() = default;
BatchProblem::~BatchProblem() = default;
BatchLearner::~BatchLearner() = default;
LabelBuyer::~LabelBuyer() = default;
RunReporter::~RunReporter() = default;

Dataset DataSource::load_for_seed(const SeedContext&) const {
  throw Error("this data source declares per_seed() but does not implement load_for_seed()");
}

std::string_view plugin_kind_name(PluginKind kind) noexcept {
  switch (kind) {
    case PluginKind::learner:
      return "learner";
    case PluginKind::oracle:
      return "oracle";
    case PluginKind::query_rule:
      return "query_rule";
    case PluginKind::metric:
      return "metric";
    case PluginKind::data_source:
      return "data_source";
    case PluginKind::transform:
      return "transform";
  }
  return "unknown";
}

std::string_view feedback_kind_name(FeedbackKind kind) noexcept {
  switch (kind) {
    case FeedbackKind::none:
      return "none";
    case FeedbackKind::label:
      return "label";
    case FeedbackKind::correctness:
      return "correctness";
    case FeedbackKind::complementary:
      return "complementary";
    case FeedbackKind::candidate_set:
      return "candidate_set";
    case FeedbackKind::noisy_label:
      return "noisy_label";
  }
  return "unknown";
}

std::vector<FeedbackKind> FeedbackKinds::kinds() const {
  std::vector<FeedbackKind> result;
  for (int k = 1; k < feedback_kind_count; ++k)
    if (bits_ & (1u << k)) result.push_back(static_cast<FeedbackKind>(k));
  return result;
}

}  // namespace glimpse
