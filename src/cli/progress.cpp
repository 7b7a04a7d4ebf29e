#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace rooflens::cli {

ProgressBar::ProgressBar(std::string name, bool enabled, std::chrono::milliseconds log_every)
    : name_(std::move(name)), enabled_(enabled), tty_(::isatty(2)), log_every_(log_every),
      start_(std::chrono::steady_clock::now()) {}

double ProgressBar::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(const std::string& what, size_t done, size_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = done >= total;
  // A terminal redraws at most ~10 times a second; a log gets a line per `log_every`. The last update always shows.
  const auto every = tty_ ? std::chrono::milliseconds(100) : log_every_;
  if (!last && done > 0 && last_ != std::chrono::steady_clock::time_point{} && now - last_ < every) return;
  last_ = now;
  double elapsed = elapsed_s();
  const int width = 24;
  int filled = static_cast<int>(width * done / total);
  std::string bar(static_cast<size_t>(filled), '=');
  bar += std::string(static_cast<size_t>(width - filled), ' ');
  std::string eta = done > 0 ? std::to_string(static_cast<long>(elapsed / static_cast<double>(done) *
                                                               static_cast<double>(total - done))) + " s"
                             : "?";
  std::fprintf(stderr, "%s%s [%s] %zu/%zu %s · %.0f s elapsed · ETA %s%s", tty_ ? "\r\033[K" : "", name_.c_str(),
               bar.c_str(), done, total, what.c_str(), elapsed, eta.c_str(), tty_ && !last ? "" : "\n");
  std::fflush(stderr);
}

}  // namespace rooflens::cli
