// `glimpse new learner NAME`: a working learner plugin folder (code, unit test, README, CMakeLists) to start from,
// in the glimpse tree (plugins/learners/NAME) or as a project of its own built against an installed glimpse.
#pragma once

#include <filesystem>
#include <vector>

namespace glimpse::cli {

// Writes the folder and returns the files written. Error when NAME is not lower_snake_case or the folder exists.
std::vector<std::filesystem::path> write_new_learner(const std::string& name, const std::filesystem::path& folder,
                                                     bool in_tree);

}  // namespace glimpse::cli
