#include "cli/interrupt.h"

#include <pthread.h>

#include <cstdio>

namespace rooflens::cli {

InterruptWatcher::InterruptWatcher(std::string message, std::function<void()> on_interrupt)
    : message_(std::move(message)), on_interrupt_(std::move(on_interrupt)) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);  // threads started after this inherit the mask
  thread_ = std::thread([this] { watch(); });
}

InterruptWatcher::~InterruptWatcher() {
  done_ = true;
  thread_.join();
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

void InterruptWatcher::watch() {
  timespec tick{0, 100 * 1000 * 1000};
  while (!done_) {
    if (sigtimedwait(&set_, nullptr, &tick) > 0 && !interrupted_.exchange(true)) {
      std::fprintf(stderr, "\n%s\n", message_.c_str());
      if (on_interrupt_) on_interrupt_();
    }
  }
}

}  // namespace rooflens::cli
