// Errors a user can act on: each names where the problem is (file, line, path inside a protocol).
#pragma once

#include <stdexcept>
#include <string>

namespace glimpse {

// Thrown for bad input (data files, protocols, parameters) and refused plugins. The message starts
// with the user's location, e.g. "protocols/x.json: learners[2].grid.beta[0]: expected ...".
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  Error(const std::string& where, const std::string& what);
};

}  // namespace glimpse
