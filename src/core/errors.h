#pragma once
// One error type for everything a user can cause (bad file, bad flag value, unresolvable shape).
// The CLI prints what() as a single line and exits 1. Messages name the file/node and what to do.
#include <stdexcept>
#include <string>

namespace rooflens {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Usage mistakes that CLI11 cannot see (conflicting flags, malformed --shape): exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace rooflens
