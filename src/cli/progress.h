#pragma once
// Progress on stderr for long commands: "<name> [=====     ] 12/40 <what> · 3 s elapsed · ETA 7 s". On a
// terminal the line redraws in place; otherwise (logs, CI) a line is printed at most every `log_every`.
#include <chrono>
#include <cstddef>
#include <string>

namespace rooflens::cli {

class ProgressBar {
 public:
  ProgressBar(std::string name, bool enabled, std::chrono::milliseconds log_every = std::chrono::milliseconds(0));
  void update(const std::string& what, size_t done, size_t total);
  double elapsed_s() const;

 private:
  std::string name_;
  bool enabled_, tty_;
  std::chrono::milliseconds log_every_;
  std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace rooflens::cli
