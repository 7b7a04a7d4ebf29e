#include "reporters/bench_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/repetitions.h"
#include "core/text_table.h"

namespace rooflens {
namespace {

struct StatusCounts {
  size_t total = 0, pass = 0, fail = 0, timeout = 0, crash = 0, skip = 0;
  void add(const std::string& s) {
    ++total;
    if (s == "pass") ++pass;
    else if (s == "fail") ++fail;
    else if (s == "timeout") ++timeout;
    else if (s == "crash") ++crash;
    else ++skip;
  }
};

std::string rate_pct(double f) { return fmt::format("{:.1f}%", 100.0 * f); }

// "a, b, c, … (+12)": distinct models in order of appearance.
std::string models_list(const std::vector<const BenchEntry*>& es, size_t max) {
  std::vector<std::string> names;
  for (const auto* e : es)
    if (std::find(names.begin(), names.end(), e->model) == names.end()) names.push_back(e->model);
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > max) s += fmt::format(", … (+{})", names.size() - max);
  return s;
}

std::string status_table(const BenchResults& r, StatusCounts& all) {
  TextTable t;
  t.columns = {{"config"}, {"models", true}, {"pass", true}, {"fail", true}, {"timeout", true}, {"crash", true},
               {"skip", true}, {"pass rate", true}};
  for (const auto& c : r.configs) {
    StatusCounts k;
    for (const auto& e : r.entries)
      if (e.config == c.label) k.add(e.status);
    for (const auto& e : r.entries)
      if (e.config == c.label) all.add(e.status);
    t.rows.push_back({c.label, std::to_string(k.total), std::to_string(k.pass), std::to_string(k.fail),
                      std::to_string(k.timeout), std::to_string(k.crash), std::to_string(k.skip),
                      rate_pct(pass_rate(k.pass, k.total, k.skip))});
  }
  return t.render();
}

// Failures grouped by (status, error type, stage), biggest group first, with example models and one message.
std::string failure_groups(const BenchResults& r, size_t top) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const BenchEntry*>> groups;
  for (const auto& e : r.entries)
    if (e.status == "fail" || e.status == "timeout" || e.status == "crash")
      groups[{e.status, e.error_type, e.stage}].push_back(&e);
  if (groups.empty()) return "";
  std::vector<std::pair<std::tuple<std::string, std::string, std::string>, std::vector<const BenchEntry*>>> sorted(
      groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  TextTable t;
  t.columns = {{"status"}, {"error type"}, {"stage"}, {"count", true}, {"models", false, 70}};
  std::string examples;
  for (const auto& [key, es] : sorted) {
    const auto& [status, type, stage] = key;
    t.rows.push_back({status, type, stage, std::to_string(es.size()), models_list(es, 4)});
    examples += fmt::format("  {} ({}): {}\n", type, es[0]->model, es[0]->message.substr(0, 300));
  }
  size_t n = 0;
  for (const auto& g : sorted) n += g.second.size();
  return fmt::format("failures by error type ({}):\n", n) + t.render() + "first message of each type:\n" + examples;
}

std::string skip_groups(const BenchResults& r) {
  std::map<std::string, std::vector<const BenchEntry*>> groups;
  for (const auto& e : r.entries)
    if (e.status == "skip") groups[e.error_type].push_back(&e);
  if (groups.empty()) return "";
  size_t n = 0;
  for (const auto& g : groups) n += g.second.size();
  std::string out = fmt::format("skipped ({}):\n", n);
  for (const auto& [type, es] : groups)
    out += fmt::format("  {} ×{}: {} — e.g. {}\n", type.empty() ? "other" : type, es.size(), models_list(es, 3),
                       es[0]->message.substr(0, 200));
  return out;
}

std::string slowest(const BenchResults& r, size_t top) {
  std::vector<const BenchEntry*> ran;
  bool timed = false;
  for (const auto& e : r.entries) {
    if (e.status == "skip") continue;
    ran.push_back(&e);
    timed |= e.latency_ms.n > 0;
  }
  if (ran.empty() || top == 0) return "";
  auto key = [timed](const BenchEntry* e) { return timed ? e->latency_ms.median : e->wall_s; };
  std::stable_sort(ran.begin(), ran.end(), [&](const BenchEntry* a, const BenchEntry* b) { return key(a) > key(b); });
  const bool rounds = r.options.repeat > 1;
  TextTable t;
  if (timed)
    t.columns = {{"model"}, {"config"}, {"p50 ms", true}, {"p90 ms", true}, {"p99 ms", true}, {"mean ms", true},
                 {"runs/s", true}, {"status"}};
  else
    t.columns = {{"model"}, {"config"}, {"wall s", true}, {"load ms", true}, {"status"}};
  if (timed && rounds) t.columns.insert(t.columns.begin() + 7, {{"rounds", true}, {"spread", true}});
  for (size_t i = 0; i < ran.size() && i < top; ++i) {
    const BenchEntry& e = *ran[i];
    if (timed) {
      t.rows.push_back({e.model, e.config, fmt::format("{:.3f}", e.latency_ms.median), fmt::format("{:.3f}", e.latency_ms.p90),
                        fmt::format("{:.3f}", e.latency_ms.p99), fmt::format("{:.3f}", e.latency_ms.mean),
                        fmt::format("{:.1f}", e.throughput_per_s), e.status});
      if (rounds) {
        RepetitionSpread sp = repetition_spread(e.latencies_ms, e.repetitions);
        t.rows.back().insert(t.rows.back().begin() + 7,
                             {std::to_string(sp.count), sp.count > 1 ? rate_pct(sp.spread) : "-"});
      }
    } else
      t.rows.push_back({e.model, e.config, fmt::format("{:.2f}", e.wall_s), fmt::format("{:.1f}", e.load_ms), e.status});
  }
  return fmt::format("slowest {} ({}):\n", std::min(top, ran.size()),
                     timed ? std::string("median latency, profiling off") +
                                 (rounds ? "; spread = (highest - lowest round median) / p50" : "")
                           : "wall time per model") +
         t.render();
}

// With rounds: how many timed entries vary more from run to run than inside a run (what compare will weigh).
std::string run_to_run(const BenchResults& r) {
  if (r.options.repeat <= 1) return "";
  size_t timed = 0, large = 0;
  for (const auto& e : r.entries) {
    RepetitionSpread sp = repetition_spread(e.latencies_ms, e.repetitions);
    if (sp.count < 2) continue;
    ++timed;
    large += spread_is_large(sp);
  }
  if (timed == 0) return "";
  return fmt::format("run-to-run: the round medians of {} of {} entries lie further apart than the samples of a round "
                     "scatter (robust CV); rooflens compare weighs that variation when both sides have rounds\n",
                     large, timed);
}

}  // namespace

double pass_rate(size_t pass, size_t total, size_t skipped) {
  return total > skipped ? static_cast<double>(pass) / static_cast<double>(total - skipped) : 0;
}

std::string bench_summary(const BenchResults& r, const BenchSummaryOptions& o) {
  std::set<std::string> models;
  for (const auto& e : r.entries) models.insert(e.model);
  std::string out = fmt::format("rooflens bench: {} models × {} configuration{}{}, {} mode", models.size(), r.configs.size(),
                                r.configs.size() == 1 ? "" : "s",
                                r.options.repeat > 1 ? fmt::format(" × {} rounds", r.options.repeat) : "",
                                r.options.mode);
  if (o.elapsed_s > 0) out += fmt::format(" — {:.1f} s with {} worker{}", o.elapsed_s, o.workers, o.workers == 1 ? "" : "s");
  if (o.resumed > 0) out += fmt::format(" ({} entries from the earlier run)", o.resumed);
  if (r.partial) out += " — INTERRUPTED, partial results";
  out += "\n\n";
  StatusCounts all;
  out += status_table(r, all);
  out += fmt::format("pass rate {} ({} of {} that ran; {} skipped). Pass rate = pass / (models − skipped).\n",
                     rate_pct(pass_rate(all.pass, all.total, all.skip)), all.pass, all.total - all.skip, all.skip);
  for (const std::string& part : {failure_groups(r, o.top), skip_groups(r), slowest(r, o.top), run_to_run(r)})
    if (!part.empty()) out += "\n" + part;
  return out;
}

}  // namespace rooflens
