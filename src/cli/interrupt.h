#pragma once
// Ctrl-C / SIGTERM for long commands: a watcher thread (the signals are blocked elsewhere, so no signal handler
// runs in the middle of anything) sets a flag, prints one line and calls `on_interrupt` (which ends the runtime
// processes), so the command can record the interruption and write its partial results.
#include <signal.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace rooflens::cli {

class InterruptWatcher {
 public:
  InterruptWatcher(std::string message, std::function<void()> on_interrupt);
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;
  const std::atomic<bool>& flag() const { return interrupted_; }

 private:
  void watch();
  std::string message_;
  std::function<void()> on_interrupt_;
  sigset_t set_{}, old_{};
  std::atomic<bool> interrupted_{false}, done_{false};
  std::thread thread_;
};

}  // namespace rooflens::cli
