#include "capacity/generative/instances.h"

#include <algorithm>

namespace rooflens::capacity::generative {

std::vector<InstanceShare> split_load(const LoadPlan& load, int64_t instances) {
  const auto n = static_cast<size_t>(std::max<int64_t>(1, instances));
  std::vector<InstanceShare> shares(n);
  const size_t total = load.shapes.size();
  if (n == 1) {
    shares[0].load = load;
    for (size_t i = 0; i < total; ++i) shares[0].ids.push_back(static_cast<int64_t>(i));
    return shares;
  }
  if (load.kind == LoadKind::concurrency) {
    // Users spread as evenly as they go; requests dealt in turn to the instances that have users.
    const size_t active = std::min<size_t>(n, static_cast<size_t>(std::max<int64_t>(1, load.users)));
    for (size_t k = 0; k < active; ++k) {
      shares[k].load.kind = LoadKind::concurrency;
      shares[k].load.users = load.users / static_cast<int64_t>(active) + (k < static_cast<size_t>(load.users) % active);
    }
    for (size_t i = 0; i < total; ++i) {
      InstanceShare& s = shares[i % active];
      s.load.shapes.push_back(load.shapes[i]);
      s.ids.push_back(static_cast<int64_t>(i));
    }
    return shares;
  }
  // Server, offline and trace: the whole load's arrival times, each request replayed on its instance as a trace.
  const std::vector<int64_t> at = arrivals(load);
  for (size_t i = 0; i < total; ++i) {
    InstanceShare& s = shares[i % n];
    s.load.kind = LoadKind::trace;
    s.load.shapes.push_back(load.shapes[i]);
    s.load.trace_ns.push_back(at[i]);
    s.ids.push_back(static_cast<int64_t>(i));
  }
  return shares;
}

ServingRecords merge_records(std::vector<ServingRecords> parts, const std::vector<InstanceShare>& shares) {
  if (parts.size() == 1) return std::move(parts[0]);
  ServingRecords out;
  bool first = true;
  for (size_t k = 0; k < parts.size(); ++k) {
    ServingRecords& p = parts[k];
    if (shares[k].ids.empty()) continue;  // an instance with nothing to serve did not run
    out.start_ns = first ? p.start_ns : std::min(out.start_ns, p.start_ns);
    out.end_ns = first ? p.end_ns : std::max(out.end_ns, p.end_ns);
    first = false;
    for (RequestRecord& r : p.requests) {
      r.id = shares[k].ids[static_cast<size_t>(r.id)];
      out.requests.push_back(std::move(r));
    }
    out.planned += p.planned;
    out.steps += p.steps;
    out.step_busy_s += p.step_busy_s;
    out.scheduler_s += p.scheduler_s;
    out.kv_copy_bytes += p.kv_copy_bytes;
    out.max_batch_seen = std::max(out.max_batch_seen, p.max_batch_seen);
    if (out.fault.empty() && !p.fault.empty()) out.fault = "instance " + std::to_string(k) + ": " + p.fault;
    out.interrupted = out.interrupted || p.interrupted;
  }
  std::sort(out.requests.begin(), out.requests.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.id < b.id; });
  return out;
}

void InstanceSink::begin(int64_t start_ns) {
  if (!begins_) return;
  std::lock_guard<std::mutex> hold(lock_);
  inner_.begin(start_ns);
}

void InstanceSink::add(const RequestRecord& r) {
  RequestRecord whole = r;
  whole.id = share_.ids[static_cast<size_t>(r.id)];
  std::lock_guard<std::mutex> hold(lock_);
  inner_.add(whole);
}

}  // namespace rooflens::capacity::generative
