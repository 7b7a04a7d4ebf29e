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

// A message from elsewhere (a runner's stderr, a runtime's exception) on one line, as every error rooflens prints
// and stores is: line breaks become spaces.
inline std::string one_line(std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  return message;
}

}  // namespace rooflens
