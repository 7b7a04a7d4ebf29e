#include "capacity/loadgen/records.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "capacity/loadgen/verdict.h"
#include "core/errors.h"
#include "core/text_table.h"

namespace rooflens::capacity {
namespace {

std::string ms_since(int64_t t, int64_t start) {
  return t == 0 ? "" : fmt::format("{:.6f}", static_cast<double>(t - start) / 1e6);
}

const char* status_name(QueryStatus s) {
  switch (s) {
    case QueryStatus::ok: return "ok";
    case QueryStatus::failed: return "failed";
    case QueryStatus::abandoned: return "abandoned";
  }
  return "?";
}

}  // namespace

CsvRecordSink::CsvRecordSink(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UserError("--queries " + path + ": cannot write it (" + std::strerror(errno) + ")");
  write_all(csv_row({"run", "config", "scenario", "target_qps", "query", "sample", "samples", "scheduled_ms",
                     "issued_ms", "sent_ms", "start_ms", "end_ms", "completed_ms", "latency_ms", "instance", "batch",
                     "status", "error"}));
}

CsvRecordSink::~CsvRecordSink() {
  flush();
  if (fd_ >= 0) ::close(fd_);
}

void CsvRecordSink::begin_run(const RunPlan& plan, int64_t start_ns) {
  flush();
  plan_ = plan;
  start_ns_ = start_ns;
  ++run_;
}

void CsvRecordSink::add(const QueryRecord& r) {
  const QueryDone& d = r.done;
  pending_ += csv_row({std::to_string(run_), config_, to_string(plan_.scenario),
                       plan_.scenario == Scenario::server ? fmt::format("{:g}", plan_.qps) : "",
                       std::to_string(r.issued.id), std::to_string(r.issued.first_sample),
                       std::to_string(r.issued.samples), ms_since(r.issued.scheduled_ns, start_ns_),
                       ms_since(r.issued.issued_ns, start_ns_), ms_since(d.sent_ns, start_ns_),
                       ms_since(d.start_ns, start_ns_), ms_since(d.end_ns, start_ns_),
                       ms_since(d.completed_ns, start_ns_),
                       d.status == QueryStatus::failed ? "" : fmt::format("{:.6f}", latency_ms(r, plan_.scenario, d.completed_ns)),
                       d.instance < 0 ? "" : std::to_string(d.instance), d.batch ? std::to_string(d.batch) : "",
                       status_name(d.status), d.error});
}

void CsvRecordSink::flush() {
  if (pending_.empty()) return;
  write_all(pending_);
  pending_.clear();
}

void CsvRecordSink::write_all(const std::string& text) {
  size_t done = 0;
  while (done < text.size() && fd_ >= 0) {
    const ssize_t k = ::write(fd_, text.data() + done, text.size() - done);
    if (k > 0) done += static_cast<size_t>(k);
    else if (k < 0 && errno == EINTR) continue;
    else throw UserError("--queries " + path_ + ": writing failed (" + std::strerror(errno) + ")");
  }
}

}  // namespace rooflens::capacity
