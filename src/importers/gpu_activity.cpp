// GPU activities -> the measurement's kernels. Iterations are the importer's (profiler steps, NVTX ranges, or the
// whole capture); here they only become per-iteration times and the run time coverage is measured against.
#include "importers/gpu_activity.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace rooflens::importers {
namespace {

struct Span {
  double sum = 0, run = 0, span = 0;
  bool overlapped = false;
};

// Σ time, span and busy time (the union of the intervals) of one iteration's activities, sorted by start.
Span span_of(const std::vector<const GpuActivity*>& acts) {
  Span s;
  double first = acts.front()->start_ms, last = first, busy = 0, open_start = first, open_end = first;
  for (const GpuActivity* a : acts) {
    s.sum += a->end_ms - a->start_ms;
    last = std::max(last, a->end_ms);
    if (a->start_ms > open_end) {
      busy += open_end - open_start;
      open_start = a->start_ms;
    }
    open_end = std::max(open_end, a->end_ms);
  }
  busy += open_end - open_start;
  s.span = last - first;
  s.overlapped = s.sum > busy + 1e-9;
  s.run = s.sum + (s.span - busy);  // idle gaps are what the span holds beyond the busy time
  return s;
}

// Records that share a name get " #2", " #3", ... after the first, so every layer of the table is told apart.
void number_repeated_names(std::vector<KernelRecord>& kernels) {
  std::map<std::string, int> total, seen;
  for (const auto& k : kernels) ++total[k.name];
  for (auto& k : kernels)
    if (total[k.name] > 1 && ++seen[k.name] > 1) k.name += " #" + std::to_string(seen[k.name]);
}

}  // namespace

GpuRun fill_gpu_measurement(Measurement& m, std::vector<GpuActivity> activities, size_t iterations,
                            const std::vector<double>& wall_ms, Repeats repeats) {
  std::vector<std::vector<const GpuActivity*>> by_iteration(iterations);
  for (const auto& a : activities)
    if (a.iteration < iterations) by_iteration[a.iteration].push_back(&a);
  std::vector<size_t> kept;  // source iteration of each kept one
  for (size_t i = 0; i < iterations; ++i)
    if (!by_iteration[i].empty()) kept.push_back(i);

  GpuRun out;
  out.iterations = kept.size();
  std::unordered_map<std::string, size_t> record_of;
  std::vector<uint64_t> bytes_total;  // summed records: bytes over every launch, made per iteration at the end
  for (size_t n = 0; n < kept.size(); ++n) {
    auto& acts = by_iteration[kept[n]];
    std::stable_sort(acts.begin(), acts.end(),
                     [](const GpuActivity* a, const GpuActivity* b) { return a->start_ms < b->start_ms; });
    std::unordered_map<std::string, int> occurrence;
    for (const GpuActivity* a : acts) {
      std::string key = repeats == Repeats::apart ? a->key + '\x1e' + std::to_string(occurrence[a->key]++) : a->key;
      auto [it, fresh] = record_of.try_emplace(key, m.kernels.size());
      if (fresh) {
        KernelRecord k = a->record;
        k.per_iteration_ms.assign(kept.size(), 0.0);
        k.start_ms = a->start_ms - acts.front()->start_ms;
        m.kernels.push_back(std::move(k));
        bytes_total.push_back(0);
      }
      m.kernels[it->second].per_iteration_ms[n] += a->end_ms - a->start_ms;
      bytes_total[it->second] += a->record.bytes.value_or(0);
    }
    Span s = span_of(acts);
    m.profiled_runs_ms.push_back(s.run);
    if (s.overlapped) ++out.overlapped_iterations;
    m.profiled_latencies_ms.push_back(wall_ms.size() == iterations ? wall_ms[kept[n]] : s.span);
  }
  m.latencies_ms = m.profiled_latencies_ms;
  if (repeats == Repeats::summed && !kept.empty())
    for (size_t r = 0; r < m.kernels.size(); ++r)
      if (m.kernels[r].bytes) m.kernels[r].bytes = bytes_total[r] / kept.size();
  number_repeated_names(m.kernels);
  return out;
}

std::string kernel_base_name(const std::string& demangled) {
  std::string s = demangled;
  for (const std::string anon = "(anonymous namespace)::";;) {
    size_t p = s.find(anon);
    if (p == std::string::npos) break;
    s.erase(p, anon.size());
  }
  // The return type ("void ") is the part before the last space outside brackets ahead of the name.
  size_t cut = s.find_first_of("<(");
  std::string head = s.substr(0, cut);
  size_t space = head.rfind(' ');
  std::string base = space == std::string::npos ? head : head.substr(space + 1);
  return base.empty() ? demangled : base;
}

std::string without_digits(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool digit = std::isdigit(static_cast<unsigned char>(c));
    if (!digit) out += c;
    else if (out.empty() || out.back() != '#') out += '#';
  }
  return out;
}

}  // namespace rooflens::importers
