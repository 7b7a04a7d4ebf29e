#include "backends/onnxruntime/ort_dispatch.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "stats/order.h"

namespace rooflens::ort {
namespace {

using json = nlohmann::json;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

int64_t number(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return 0;
  const json& v = o[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
  return 0;
}

const json* scheduling_stats(const OrtProfileEvent& e) {
  if (!e.args.is_object() || !e.args.contains("thread_scheduling_stats")) return nullptr;
  return &e.args["thread_scheduling_stats"];
}

// The run an event lies in, by its start (ORT's `Session` events are not assigned to runs by the parser).
int run_of(const OrtProfile& p, int64_t ts) {
  auto it = std::upper_bound(p.runs.begin(), p.runs.end(), ts, [](int64_t t, const OrtProfileRun& r) { return t < r.ts_us; });
  if (it == p.runs.begin()) return -1;
  --it;
  return ts <= it->ts_us + it->dur_us ? static_cast<int>(it - p.runs.begin()) : -1;
}

double ms(int64_t us) { return static_cast<double>(us) / 1000.0; }

// The longest stretch in one run between the end of every kernel event so far and the next one's start. Events
// nest (a subgraph's kernels inside their If or Loop) and fences are timed waits, so it is measured from the furthest
// end reached, over every Node event in start order.
int64_t longest_gap_us(std::vector<std::pair<int64_t, int64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  int64_t longest = 0;
  std::optional<int64_t> reach;
  for (const auto& [start, dur] : spans) {
    if (reach) longest = std::max(longest, start - *reach);
    reach = std::max(reach.value_or(start + dur), start + dur);
  }
  return longest;
}

}  // namespace

bool is_fence(const OrtProfileEvent& e) {
  return e.is_kernel() && (ends_with(e.name, "_fence_before") || ends_with(e.name, "_fence_after"));
}

DispatchSamples dispatch_samples(const OrtProfile& p, int first, int runs) {
  const size_t n = runs > 0 ? static_cast<size_t>(runs) : 0;
  std::vector<int64_t> executor(n, 0), fences(n, 0), handoff(n, 0), wait(n, 0), parallel(n, 0);
  std::vector<std::vector<std::pair<int64_t, int64_t>>> spans(n);  // per run: every Node event's (start, duration)
  bool any_executor = false, any_fence = false, any_pool = false, any_kernel = false;
  for (const auto& e : p.events) {
    const int r = (e.is_kernel() ? e.run_index : run_of(p, e.ts_us)) - first;
    if (r < 0 || static_cast<size_t>(r) >= n) continue;
    if (e.is_kernel()) {
      spans[static_cast<size_t>(r)].emplace_back(e.ts_us, e.dur_us);
      any_kernel = true;
    }
    if (e.cat == "Session" && e.name == "SequentialExecutor::Execute") {
      // A subgraph (If, Loop, Scan) runs an executor of its own inside the run's: the outermost spans them all.
      executor[static_cast<size_t>(r)] = std::max(executor[static_cast<size_t>(r)], e.dur_us);
      any_executor = true;
    } else if (is_fence(e)) {
      fences[static_cast<size_t>(r)] += e.dur_us;
      any_fence = true;
    } else if (const json* s = e.is_kernel() ? scheduling_stats(e) : nullptr; s && s->is_object()) {
      const json& main = s->contains("main_thread") ? (*s)["main_thread"] : json();
      handoff[static_cast<size_t>(r)] += number(main, "Distribution") + number(main, "DistributionEnqueue");
      wait[static_cast<size_t>(r)] += number(main, "Wait") + number(main, "WaitRevoke");
      if (main.is_object() && main.contains("block_size") && main["block_size"].is_array() && !main["block_size"].empty())
        ++parallel[static_cast<size_t>(r)];
      any_pool = true;
    }
  }
  DispatchSamples d;
  for (size_t i = 0; i < n; ++i) {
    if (any_executor) d.executor_ms.push_back(ms(executor[i]));
    if (any_fence) d.fences_ms.push_back(ms(fences[i]));
    if (any_kernel) d.longest_gap_ms.push_back(ms(longest_gap_us(spans[i])));
    if (any_pool) {
      d.pool_handoff_ms.push_back(ms(handoff[i]));
      d.pool_wait_ms.push_back(ms(wait[i]));
    }
  }
  if (any_pool && n > 0) {
    d.parallel_kernels = static_cast<int64_t>(stats::upper_median(std::vector<double>(parallel.begin(), parallel.end())));
  }
  return d;
}

std::optional<ThreadsObserved> threads_observed(const OrtProfile& p, int first, int runs) {
  bool seen = false;
  int64_t subs = 0;
  std::map<std::string, int64_t> before, low, high;  // worker id -> tasks run so far
  for (const auto& e : p.events) {
    const json* s = e.is_kernel() ? scheduling_stats(e) : nullptr;
    if (!s) continue;
    const bool measured = e.run_index >= first && e.run_index < first + runs;
    if (!s->is_object() || !s->contains("sub_threads") || !(*s)["sub_threads"].is_object()) {
      seen = seen || measured;  // "": no pool in this inference session
      continue;
    }
    for (const auto& [tid, stat] : (*s)["sub_threads"].items()) {
      const int64_t done = number(stat, "num_run");
      if (e.run_index >= 0 && e.run_index < first) {
        before[tid] = done;
      } else if (measured) {
        low.emplace(tid, done);
        low[tid] = std::min(low[tid], done);
        high[tid] = std::max(high[tid], done);
      }
    }
    if (measured) {
      seen = true;
      subs = std::max<int64_t>(subs, static_cast<int64_t>((*s)["sub_threads"].size()));
    }
  }
  if (!seen) return std::nullopt;
  ThreadsObserved t;
  t.pool = 1 + subs;
  int64_t working = 1;  // the calling thread runs every kernel
  for (const auto& [tid, top] : high) {
    auto b = before.find(tid);
    if (top > (b != before.end() ? b->second : low[tid])) ++working;
  }
  t.working = std::min(working, t.pool);
  return t;
}

}  // namespace rooflens::ort
