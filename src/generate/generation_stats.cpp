#include "generate/generation_stats.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

#include "core/errors.h"
#include "core/saturating.h"
#include "core/stats.h"
#include "stats/order.h"

namespace rooflens {
namespace {

struct MeanStd {
  double mean = 0, std = 0;
};

MeanStd mean_std(const std::vector<double>& v) {
  MeanStd m;
  if (v.empty()) return m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  if (v.size() < 2) return m;
  double ss = 0;
  for (double x : v) ss += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return m;
}

// The mean of page-fault counts kept beside `samples` samples, when there is one count for each of them.
std::optional<double> mean_count(const std::vector<int64_t>& counts, size_t samples) {
  if (samples == 0 || counts.size() != samples) return std::nullopt;
  double sum = 0;
  for (int64_t c : counts) sum += static_cast<double>(c);
  return sum / static_cast<double>(samples);
}

// KV bytes a decode step reads at `context` tokens per sequence: keys and values of every cached token including
// its own, every layer, every sequence.
uint64_t kv_read(const GenerationRun& r, int64_t context) {
  return sat_mul(sat_mul(r.kv_bytes_per_token, static_cast<uint64_t>(context)), static_cast<uint64_t>(r.batch));
}

// Whether the series can leave out the steps that took page faults: the counts are there, some step took more than
// kQuietStepFaults, and every context keeps at least one step that did not. Where every step faults alike (a short
// context whose copies land on fresh pages every step), that is the binding's steady cost and stays in.
bool leave_out_faulted_steps(const GenerationRun& r, size_t requests, size_t gen) {
  if (r.step_page_faults.size() != requests * gen) return false;
  bool any = false;
  for (size_t s = 0; s < gen; ++s) {
    bool quiet = false;
    for (size_t q = 0; q < requests; ++q) {
      const bool faulted = r.step_page_faults[q * gen + s] > kQuietStepFaults;
      quiet |= !faulted;
      any |= faulted;
    }
    if (!quiet) return false;
  }
  return any;
}

void context_series(GenerationRun& r, size_t requests) {
  r.by_context.clear();
  r.by_context_faulted_steps.reset();
  r.by_context_kv_share.reset();
  if (r.gen <= 0 || r.tpot_samples_ms.empty()) return;
  const size_t gen = static_cast<size_t>(r.gen);
  // Episodes of faulting steps (several requests at the same positions) bend the TPOT-vs-KV line without saying
  // anything about the KV: once they gave it a slope of -10.7 ms per MB (docs/memory.md).
  const bool quiet_only = leave_out_faulted_steps(r, requests, gen);
  int64_t left_out = 0;
  double bytes_sum = 0, time_sum = 0;
  for (size_t s = 0; s < gen; ++s) {
    ContextPoint p;
    p.context = r.prompt + static_cast<int64_t>(s) + 1;
    p.kv_bytes = kv_read(r, p.context);
    p.bytes = sat_add(r.weight_bytes, p.kv_bytes);
    std::vector<double> at;
    for (size_t q = 0; q < requests; ++q) {
      const double t = r.tpot_samples_ms[q * gen + s];
      bytes_sum += static_cast<double>(p.bytes);  // the decode headline: every step, as the run took it
      time_sum += t;
      if (quiet_only && r.step_page_faults[q * gen + s] > kQuietStepFaults) ++left_out;
      else at.push_back(t);
    }
    p.n = static_cast<int64_t>(at.size());
    p.tpot_ms = stats::median_of(at);
    p.gbps = p.tpot_ms > 0 ? static_cast<double>(p.bytes) / (p.tpot_ms / 1000.0) / 1e9 : 0;
    r.by_context.push_back(p);
  }
  double per_step = 0;
  for (const auto& p : r.by_context) per_step += static_cast<double>(p.bytes);
  per_step /= static_cast<double>(r.by_context.size());
  r.decode_bytes_per_token = static_cast<uint64_t>(std::llround(per_step / static_cast<double>(std::max<int64_t>(1, r.batch))));
  r.decode_gbps = time_sum > 0 ? bytes_sum / (time_sum / 1000.0) / 1e9 : 0;
  r.tpot_vs_kv = fit_tpot_vs_kv(r.by_context);
  if (quiet_only) r.by_context_faulted_steps = left_out;
  if (per_step > 0)
    r.by_context_kv_share =
        static_cast<double>(r.by_context.back().kv_bytes - r.by_context.front().kv_bytes) / per_step;
}

}  // namespace

void add_requests(GenerationRun& run, const std::vector<RequestSamples>& requests) {
  for (const auto& q : requests) {
    // A count per step or none: a request without them leaves the run without the figure.
    if (q.step_page_faults.size() == q.steps_ms.size() && run.step_page_faults.size() == run.tpot_samples_ms.size())
      run.step_page_faults.insert(run.step_page_faults.end(), q.step_page_faults.begin(), q.step_page_faults.end());
    else
      run.step_page_faults.clear();
    if (q.prefill_page_faults && run.prefill_page_faults.size() == run.ttft_samples_ms.size())
      run.prefill_page_faults.push_back(*q.prefill_page_faults);
    else
      run.prefill_page_faults.clear();
    if (static_cast<int64_t>(q.steps_ms.size()) != run.gen)
      throw UserError("a request returned " + std::to_string(q.steps_ms.size()) + " decode steps, expected " +
                      std::to_string(run.gen));
    run.ttft_samples_ms.push_back(q.ttft_ms);
    double e2e = q.ttft_ms;
    for (double s : q.steps_ms) {
      run.tpot_samples_ms.push_back(s);
      e2e += s;
    }
    run.e2e_samples_ms.push_back(e2e);
  }
  run.repetitions.push_back(static_cast<int64_t>(requests.size()));
}

void refresh_figures(GenerationRun& r) {
  r.ttft_ms = summarize(r.ttft_samples_ms);
  r.tpot_ms = summarize(r.tpot_samples_ms);
  r.e2e_ms = summarize(r.e2e_samples_ms);
  const size_t requests = r.ttft_samples_ms.size();
  std::vector<double> prefill_tps, decode_tps;
  for (size_t q = 0; q < requests; ++q) {
    if (r.ttft_samples_ms[q] > 0)
      prefill_tps.push_back(static_cast<double>(r.batch * r.prompt) / (r.ttft_samples_ms[q] / 1000.0));
    double steps = 0;
    for (int64_t s = 0; s < r.gen; ++s) steps += r.tpot_samples_ms[q * static_cast<size_t>(r.gen) + static_cast<size_t>(s)];
    if (r.gen > 0 && steps > 0) decode_tps.push_back(static_cast<double>(r.batch * r.gen) / (steps / 1000.0));
  }
  MeanStd p = mean_std(prefill_tps), d = mean_std(decode_tps);
  r.prefill_tokens_per_s = p.mean;
  r.prefill_tokens_per_s_std = p.std;
  r.decode_tokens_per_s = d.mean;
  r.decode_tokens_per_s_std = d.std;
  r.kv_bytes_end = kv_read(r, r.prompt + r.gen);
  context_series(r, requests);
  r.page_faults_per_step = mean_count(r.step_page_faults, r.tpot_samples_ms.size());
  r.page_faults_per_prefill = mean_count(r.prefill_page_faults, r.ttft_samples_ms.size());
}

std::vector<std::string> generation_timing_warnings(const GenerationRun& r) {
  std::vector<std::string> out;
  for (const auto* s : {&r.ttft_ms, &r.tpot_ms}) {
    if (s->cv <= 0.05) continue;
    const bool tpot = s == &r.tpot_ms;
    std::string w = std::string(tpot ? "TPOT" : "TTFT") + " unstable: CV " + fixed(s->cv * 100, 0) + "% > 5% ";
    const std::optional<double>& faults = tpot ? r.page_faults_per_step : r.page_faults_per_prefill;
    if (faults && *faults >= 16)
      w += "with " + fixed(*faults, 0) + (tpot ? " page faults a decode step" : " page faults a prefill") +
           ": the runtime's output copies land on fresh memory (docs/memory.md)";
    else
      w += "(another process busy? more --requests, or a quiet machine)";
    out.push_back(std::move(w));
  }
  return out;
}

ContextFit fit_tpot_vs_kv(const std::vector<ContextPoint>& points) {
  ContextFit f;
  const double n = static_cast<double>(points.size());
  if (points.empty()) return f;
  double mx = 0, my = 0;
  for (const auto& p : points) {
    mx += static_cast<double>(p.kv_bytes) / 1e6;
    my += p.tpot_ms;
  }
  mx /= n;
  my /= n;
  double sxx = 0, syy = 0, sxy = 0;
  for (const auto& p : points) {
    const double dx = static_cast<double>(p.kv_bytes) / 1e6 - mx, dy = p.tpot_ms - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  f.intercept_ms = my;
  if (sxx <= 0) return f;
  f.ms_per_mb = sxy / sxx;
  f.intercept_ms = my - f.ms_per_mb * mx;
  if (points.size() >= 3 && syy > 0) f.r = sxy / std::sqrt(sxx * syy);
  return f;
}

DramRoof dram_roof(const HardwareInfo& hw, int64_t threads) {
  DramRoof out;
  int64_t best_threads = -1;
  for (const auto& m : hw.memory)
    if (m.level == "DRAM" && m.gbps > 0 &&
        (best_threads < 0 || std::llabs(m.threads - threads) < std::llabs(best_threads - threads) ||
         (std::llabs(m.threads - threads) == std::llabs(best_threads - threads) && m.threads < best_threads)))
      best_threads = m.threads;
  const MemoryRoof* pick = nullptr;
  for (const auto& m : hw.memory) {
    if (m.level != "DRAM" || m.threads != best_threads || m.gbps <= 0) continue;
    const bool read = m.kernel == "read";
    if (!pick || (read && pick->kernel != "read") || (read == (pick->kernel == "read") && m.gbps > pick->gbps)) pick = &m;
  }
  if (pick) {
    out.gbps = pick->gbps;
    out.label = "DRAM " + pick->kernel + " x" + std::to_string(pick->threads);
  }
  return out;
}

}  // namespace rooflens
