#include "backends/fault_injection.h"

#include <csignal>

namespace rooflens {
namespace {

int signal_of(const std::string& fault) {
  if (fault == "segv") return SIGSEGV;
  if (fault == "sigkill") return SIGKILL;
  if (fault == "hang") return SIGSTOP;
  throw UsageError("unknown test fault '" + fault + "' (known: segv, sigkill, hang)");
}

class FaultInjectingLiveRunner : public LiveRunner {
 public:
  FaultInjectingLiveRunner(std::unique_ptr<LiveRunner> inner, std::map<std::string, std::string> faults)
      : inner_(std::move(inner)), faults_(std::move(faults)) {
    for (const auto& [model, fault] : faults_) signal_of(fault);  // refuse unknown names before any run
  }

  void start(bool fresh_process) override { inner_->start(fresh_process); }

  ServedModel load(const ModelLoad& m) override {
    ServedModel s = inner_->load(m);
    auto it = faults_.find(m.name);
    armed_ = it == faults_.end() ? 0 : signal_of(it->second);
    return s;
  }

  std::vector<TensorValue> outputs(const FeedSpec& feed, std::chrono::milliseconds timeout) override {
    fire();
    return inner_->outputs(feed, timeout);
  }

  Measurement measure(const FeedSpec& feed, const TimingOptions& timing, const std::filesystem::path& work_dir,
                      std::chrono::milliseconds timeout) override {
    fire();
    return inner_->measure(feed, timing, work_dir, timeout);
  }

  void unload() override { inner_->unload(); }
  void abort() override { inner_->abort(); }
  pid_t process_id() const override { return inner_->process_id(); }

 private:
  void fire() {
    int sig = armed_;
    armed_ = 0;
    pid_t pid = inner_->process_id();
    if (sig != 0 && pid > 0) ::kill(pid, sig);
  }

  std::unique_ptr<LiveRunner> inner_;
  std::map<std::string, std::string> faults_;
  int armed_ = 0;
};

}  // namespace

std::unique_ptr<LiveRunner> with_injected_faults(std::unique_ptr<LiveRunner> live,
                                                  std::map<std::string, std::string> faults) {
  return std::make_unique<FaultInjectingLiveRunner>(std::move(live), std::move(faults));
}

}  // namespace rooflens
