// The terminal view of a capacity result: the verdict first, then the latency-throughput table of every run, the
// peak search, the prediction against the measurement, the explanation against the roofs, the generator's own cost,
// and with --search the grid as one table (llama-bench style).
#include "reporters/capacity_summary.h"

#include <fmt/format.h>

#include "core/text_table.h"

namespace rooflens {
namespace {

std::string sig(double v, int digits = 3) { return v == 0 ? "-" : fmt::format("{:.{}g}", v, digits); }
std::string ms2(double v) { return fmt::format("{:.2f}", v); }
std::string delta(double v) { return fmt::format("{:+.1f}%", 100 * v); }

const ScenarioResult* headline_point(const CapacityRun& r, Scenario s) {
  const ScenarioResult* best = nullptr;
  for (const auto& p : r.points) {
    if (p.scenario != s) continue;
    if (s == Scenario::server && r.peak) {
      if (p.valid && (!best || p.target_qps > best->target_qps)) best = &p;
    } else {
      best = &p;
    }
  }
  if (!best && !r.points.empty()) best = &r.points.back();
  return best;
}

std::string verdict_line(const CapacityResult& c, const CapacityRun& r) {
  const Scenario s = c.settings.scenario;
  if (!r.failure.empty()) return "FAILED  " + r.config.label() + ": " + r.failure + "\n";
  const CapacityHeadline h = headline(r, s);
  const ScenarioResult* p = headline_point(r, s);
  std::string out;
  if (s == Scenario::server && r.peak) {
    out = r.peak->qps > 0 ? fmt::format("VALID  server peak {} QPS at p{:g} <= {:g} ms", sig(r.peak->qps, 4),
                                        c.settings.percentile, c.settings.slo_ms)
                          : fmt::format("INVALID  no server QPS tried was VALID at p{:g} <= {:g} ms",
                                        c.settings.percentile, c.settings.slo_ms);
  } else if (p) {
    out = std::string(p->valid ? "VALID  " : "INVALID  ") + to_string(s);
    if (s == Scenario::server) out += fmt::format(" at {:g} QPS: p{:g} {} ms (SLO {:g} ms)", p->target_qps,
                                                  c.settings.percentile, ms2(p->percentile_ms), c.settings.slo_ms);
    else if (s == Scenario::offline) out += fmt::format(": {} samples/s", sig(p->samples_per_s, 4));
    else if (h.value > 0) out += fmt::format(": early-stopping p{:g} estimate {} ms", c.settings.percentile, ms2(h.value));
  }
  out += "   (" + r.config.label() + ")\n";
  if (p && !p->valid && !(s == Scenario::server && r.peak && r.peak->qps > 0))
    for (size_t i = 0; i < p->reasons.size(); ++i)
      out += "  reason: " + p->reasons[i] + (i < p->recommendations.size() ? "\n    -> " + p->recommendations[i] : "") + "\n";
  return out;
}

std::string points_table(const CapacityResult& c, const CapacityRun& r) {
  TextTable t;
  t.columns = {{"scenario"},        {"target QPS", true}, {"scheduled", true}, {"completed", true},
               {"samples/s", true}, {"queries", true},    {"p50 ms", true},    {"p90 ms", true},
               {"p99 ms", true},    {"p99.9 ms", true},   {"over SLO", true},  {"lag p99 ms", true},
               {"verdict"}};
  for (const auto& p : r.points) {
    t.rows.push_back({to_string(p.scenario), p.target_qps > 0 ? sig(p.target_qps, 4) : "-", sig(p.scheduled_qps, 4),
                      sig(p.completed_qps, 4), sig(p.samples_per_s, 4), std::to_string(p.queries),
                      ms2(p.latency_ms.p50), ms2(p.latency_ms.p90), ms2(p.latency_ms.p99), ms2(p.latency_ms.p999),
                      p.scenario == Scenario::server ? std::to_string(p.over_slo) : "-",
                      p.scenario == Scenario::server ? fmt::format("{:.3f}", p.issue_lag.p99_ms) : "-",
                      p.valid ? "VALID" : "INVALID"});
  }
  (void)c;
  return t.render();
}

std::string details(const CapacityResult& c, const CapacityRun& r) {
  std::string out;
  if (r.peak)
    out += fmt::format("peak search: {} QPS VALID, {} QPS INVALID (precision {:g}%{})\n", sig(r.peak->lower, 4),
                       sig(r.peak->upper, 4), 100 * r.peak->precision, r.peak->converged ? "" : ", not reached");
  if (const auto& p = r.prediction) {
    out += fmt::format("predicted (queueing simulation of single-stream service {} ms + {} ms outside the runtime): ",
                       ms2(p->service_ms), ms2(p->overhead_ms));
    out += p->peak_qps > 0 ? fmt::format("server peak {} QPS", sig(p->peak_qps, 4)) : "";
    out += fmt::format("{}offline {} samples/s", p->peak_qps > 0 ? ", " : "", sig(p->offline_samples_per_s, 4));
    if (p->measured_peak_qps > 0)
      out += fmt::format("; measured peak {} QPS, prediction error {}", sig(p->measured_peak_qps, 4), delta(p->error));
    out += "\n";
  }
  if (const auto& e = r.explanation) {
    out += fmt::format("explained: {} samples/s x {} GFLOP = {} GFLOP/s", sig(e->samples_per_s, 4),
                       sig(static_cast<double>(e->flops_per_sample) / 1e9), sig(e->gflops));
    if (!e->compute_roof.empty()) out += fmt::format(" ({:.0f}% of {})", 100 * e->compute_share, e->compute_roof);
    out += fmt::format(", layers moving {} GB/s", sig(e->gbps));
    // The layers' bytes are every read and write of every layer, wherever they were served: beyond what DRAM gives,
    // the caches served the rest (a model whose weights fit the last level), which the line says rather than imply a
    // figure above its roof.
    if (!e->dram_roof.empty())
      out += fmt::format(" ({:.0f}% of {}{})", 100 * e->dram_share, e->dram_roof,
                         e->dram_share > 1 ? ": more than DRAM gives, so caches served part of it" : "");
    out += fmt::format(" on {} core(s)\n", e->cores_in_use);
  }
  if (const ScenarioResult* p = headline_point(r, c.settings.scenario)) {
    std::string inst;
    for (const auto& u : p->instances)
      inst += fmt::format("{}#{} pid {}{} busy {:.0f}%", inst.empty() ? "" : " · ", u.index, u.pid,
                          u.cpus.empty() ? "" : " cpus " + u.cpus, 100 * u.busy_share);
    if (!inst.empty()) out += "instances: " + inst + "\n";
    if (p->scenario == Scenario::server)
      out += fmt::format("generator: issue lag p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms\n", p->issue_lag.p50_ms,
                         p->issue_lag.p99_ms, p->issue_lag.max_ms);
    for (const auto& w : p->warnings) out += "warning: " + w + "\n";
  }
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

std::string grid_table(const CapacityResult& c) {
  TextTable t;
  t.columns = {{"instances", true}, {"threads", true}, {"concurrency", true}, {"batch", true},
               {"max_batch", true}, {"offline samples/s", true}, {"server peak QPS", true},
               {"predicted QPS", true}, {"p99 at peak ms", true}, {"note"}};
  for (const auto& r : c.runs) {
    double offline = 0, p99 = 0;
    for (const auto& p : r.points) {
      if (p.scenario == Scenario::offline && p.valid) offline = p.samples_per_s;
      if (p.scenario == Scenario::server && p.valid && r.peak && p.target_qps == r.peak->qps) p99 = p.latency_ms.p99;
    }
    std::string note = r.failure;
    if (r.config.label() == c.best_offline) note += std::string(note.empty() ? "" : "; ") + "best offline";
    if (r.config.label() == c.best_server) note += std::string(note.empty() ? "" : "; ") + "best server";
    t.rows.push_back({std::to_string(r.config.instances), std::to_string(r.config.threads),
                      std::to_string(r.config.concurrency), std::to_string(r.config.batch),
                      std::to_string(r.config.max_batch), sig(offline, 4), sig(r.peak ? r.peak->qps : 0, 4),
                      sig(r.prediction ? r.prediction->peak_qps : 0, 4), p99 > 0 ? ms2(p99) : "-", note});
  }
  return t.render();
}

}  // namespace

std::string capacity_summary(const CapacityResult& c, const std::string& model, const std::string& runtime) {
  std::string out = fmt::format("rooflens capacity: {} · {} · {}\n", model,
                                c.settings.search ? "search" : to_string(c.settings.scenario), runtime);
  if (c.self_test) {
    const SelfTest& s = *c.self_test;
    out += fmt::format("self-test (one Identity): the engine alone {} queries/s; through generator, pipes and runners "
                       "{} queries/s; at {} QPS (Poisson) issue lag p99 {:.3f} ms, latency p50 {:.3f} ms, p99 {:.3f} ms\n",
                       sig(s.engine_qps, 4), sig(s.max_qps, 4), sig(s.lag_at_qps, 4), s.issue_lag_p99_ms,
                       s.latency_p50_ms, s.latency_p99_ms);
  }
  for (const auto& r : c.runs) out += verdict_line(c, r);
  if (c.partial) out += "PARTIAL: the command stopped early (a fault or Ctrl-C); the runs above are what finished\n";
  out += fmt::format("runs last at least {:g} s and {} queries{}\n", c.settings.min_duration_s,
                     c.settings.min_queries,
                     c.settings.mlperf_durations ? " (MLPerf's durations)"
                                                 : " (sized for small machines; MLPerf asks 600 s: --mlperf-durations)");
  for (const auto& r : c.runs) {
    if (r.points.empty()) continue;
    out += "\n" + r.config.label() + ":\n" + points_table(c, r) + details(c, r);
  }
  if (c.settings.search) {
    out += "\nconfigurations (--search):\n" + grid_table(c);
    out += "best offline: " + (c.best_offline.empty() ? std::string("none VALID") : c.best_offline) + "\n";
    if (c.settings.slo_ms > 0)
      out += "best server: " + (c.best_server.empty() ? std::string("none VALID") : c.best_server) + "\n";
  }
  for (const auto& w : c.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace rooflens
