#pragma once
// The raw per-request records of a generative serving run (`--queries FILE`, JSON Lines), written as requests finish:
// each line is handed to the kernel at once (write(2), no buffering here), so a crash, a timeout or Ctrl-C loses
// nothing already measured; requests that never finished follow when the run stops. One object per line, times in ms
// from the run's start:
//   {"id", "status" (ok | failed | rejected | abandoned), "input_tokens", "output_tokens", "scheduled_ms",
//    "admitted_ms", "first_token_ms", "end_ms", "token_ms": [...], "waited_for_kv", "error"}
// (a time that did not happen is null).
#include <string>

#include "capacity/generative/batcher.h"

namespace rooflens::capacity::generative {

class JsonlRequestSink final : public RequestSink {
 public:
  explicit JsonlRequestSink(const std::string& path);  // truncates; throws UserError naming the file
  ~JsonlRequestSink() override;
  JsonlRequestSink(const JsonlRequestSink&) = delete;
  JsonlRequestSink& operator=(const JsonlRequestSink&) = delete;

  void begin(int64_t start_ns) override { start_ns_ = start_ns; }
  void add(const RequestRecord& r) override;

 private:
  std::string path_;
  int fd_ = -1;
  int64_t start_ns_ = 0;
};

}  // namespace rooflens::capacity::generative
