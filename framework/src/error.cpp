// glimpse::Error.
#include "glimpse/error.hpp"

namespace glimpse {

Error::Error(const std::string& message) : std::runtime_error(message) {}
Error::Error(const std::string& where, const std::string& what)
    : std::runtime_error(where.empty() ? what : where + ": " + what) {}

}  // namespace glimpse
