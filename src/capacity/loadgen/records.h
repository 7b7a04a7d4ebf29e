#pragma once
// The raw per-query records (`--queries FILE`, CSV), written as queries finish: every completion is handed to the
// kernel before the engine waits again (write(2), no buffering in this process), so a crash of rooflens, a
// timeout or Ctrl-C loses nothing already measured. One file holds every run of the command; `run` numbers them.
// Columns (times in ms from the run's start, the schedule's zero):
//   run, config, scenario, target_qps, query, sample, samples, scheduled_ms, issued_ms, sent_ms, start_ms, end_ms,
//   completed_ms, latency_ms, instance, batch, status, error
#include <string>

#include "capacity/loadgen/engine.h"

namespace rooflens::capacity {

class CsvRecordSink : public RecordSink {
 public:
  explicit CsvRecordSink(const std::string& path);  // truncates; throws UserError naming the file
  ~CsvRecordSink() override;
  CsvRecordSink(const CsvRecordSink&) = delete;
  CsvRecordSink& operator=(const CsvRecordSink&) = delete;

  void set_config(const std::string& label) { config_ = label; }
  void begin_run(const RunPlan& plan, int64_t start_ns) override;
  void add(const QueryRecord& r) override;
  void flush() override;

 private:
  void write_all(const std::string& text);

  std::string path_;
  int fd_ = -1;
  std::string pending_;
  std::string config_;
  RunPlan plan_;
  int64_t start_ns_ = 0;
  int run_ = 0;
};

}  // namespace rooflens::capacity
