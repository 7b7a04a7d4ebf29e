#include "reporters/generation_summary.h"

#include <algorithm>
#include <sstream>

#include "core/text_table.h"
#include "core/units.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

std::string pct1(double v) { return fixed(v * 100, 1) + "%"; }
std::string bytes(uint64_t b) { return si_bytes(static_cast<double>(b)); }
std::string lat(double v) { return fixed(v, v < 100 ? 2 : 1); }

bool is_matmul(const std::string& op) { return op.find("MatMul") != std::string::npos || op == "Gemm"; }

std::string gen_header(const Report& r) {
  std::ostringstream out;
  const BackendInfo* b = r.backends.empty() ? nullptr : &r.backends.front();
  out << r.model.name << " on " << (b ? b->runtime : "?");
  if (b && !b->options.empty()) {
    out << "\n  options:";
    for (const auto& [k, v] : b->options) out << " " << k << "=" << v;
  }
  const DecoderIo& io = r.generation->io;
  out << "\n  decoder: " << io.cache.size() << " layers with a KV cache (" << io.kv_heads << " kv heads x head dim "
      << io.head_dim << ", " << io.kv_dtype << "; past_key_values.N -> present.N), vocab " << io.vocab
      << (io.attention_mask.empty() ? ", no attention_mask" : "")
      << (io.position_ids.empty() ? ", no position_ids" : "");
  if (r.hardware)
    out << "\n  roofs: " << roofs_text(*r.hardware);
  return out.str() + "\n";
}

// llama-bench's table: one row per phase of each configuration; t/s is mean ± std over requests (and runs).
std::string bench_table(const Report& r) {
  TextTable t;
  t.columns = {{"model"},       {"size", true},  {"params", true}, {"backend"},
               {"threads", true}, {"batch", true}, {"test"},         {"t/s", true}};
  const std::string backend = r.backends.empty() ? "?" : r.backends.front().name + " " + r.backends.front().version;
  for (const auto& run : r.generation->runs) {
    auto row = [&](const std::string& test, double tps, double sd) {
      t.rows.push_back({r.model.name, bytes(r.model.weight_bytes), si(static_cast<double>(r.model.analysis.totals.params)),
                        backend, std::to_string(run.threads), std::to_string(run.batch), test,
                        fixed(tps, 2) + " ± " + fixed(sd, 2)});
    };
    row("pp" + std::to_string(run.prompt), run.prefill_tokens_per_s, run.prefill_tokens_per_s_std);
    if (run.gen > 0) row("tg" + std::to_string(run.gen), run.decode_tokens_per_s, run.decode_tokens_per_s_std);
  }
  return t.render();
}

std::string latency_table(const Report& r) {
  TextTable t;
  t.columns = {{"config"},          {"TTFT p50", true}, {"p90", true}, {"p99", true}, {"faults/prefill", true},
               {"TPOT p50", true},  {"p90", true},      {"p99", true}, {"CV", true},  {"faults/step", true},
               {"e2e p50", true},   {"requests", true}, {"warm-up", true},  {"peak RSS", true}};
  auto maybe = [](const auto& v, auto text) { return v ? text(*v) : std::string("-"); };
  auto faults = [](double f) { return fixed(f, f < 10 ? 1 : 0); };
  for (const auto& run : r.generation->runs)
    t.rows.push_back({run.key().label(), lat(run.ttft_ms.median), lat(run.ttft_ms.p90), lat(run.ttft_ms.p99),
                      maybe(run.page_faults_per_prefill, faults),
                      lat(run.tpot_ms.median), lat(run.tpot_ms.p90), lat(run.tpot_ms.p99), pct1(run.tpot_ms.cv),
                      maybe(run.page_faults_per_step, faults),
                      lat(run.e2e_ms.median), std::to_string(run.ttft_ms.n),
                      maybe(run.warmup_requests, [](int64_t w) { return std::to_string(w); }),
                      bytes(run.peak_rss_bytes)});
  return t.render();
}

std::string headline_table(const Report& r) {
  TextTable t;
  t.columns = {{"config"},          {"weights", true}, {"KV/token", true}, {"KV at end", true},
               {"bytes/token", true}, {"achieved GB/s", true}, {"DRAM roof GB/s", true}, {"of roof", true}};
  for (const auto& run : r.generation->runs) {
    if (run.gen <= 0) continue;
    t.rows.push_back({run.key().label(), bytes(run.weight_bytes), bytes(run.kv_bytes_per_token),
                      bytes(run.kv_bytes_end), bytes(run.decode_bytes_per_token), fixed(run.decode_gbps, 1),
                      run.dram_gbps > 0 ? fixed(run.dram_gbps, 1) + " (" + run.dram_roof + ")" : "-",
                      run.dram_gbps > 0 ? pct1(run.decode_gbps / run.dram_gbps) : "-"});
  }
  return t.rows.empty() ? "" : t.render();
}

// The prediction has no allocator that keeps memory: with ORT's arena on (its default) the decode steps find what
// the prefill's arena took, and glibc's default keeps freed blocks of growing size in its heap.
std::string allocator_note(const Report& r) {
  if (r.backends.empty()) return "";
  for (const auto& run : r.generation->runs)  // nothing predicted: nothing for an allocator to explain
    if (run.memory && !run.memory->not_predicted.empty()) return "";
  const auto& o = r.backends.front().options;
  const auto arena = o.find("enableCpuMemArena");
  const bool arena_off = arena != o.end() && (arena->second == "false" || arena->second == "0");
  const bool gives_back = o.count("mallocMmapThreshold") > 0;
  if (arena_off && gives_back) return "";
  std::string kept = !arena_off ? "the runtime's memory arena was on: it keeps what the prefill took for the decode steps"
                                : "glibc kept freed blocks (its default)";
  if (!arena_off && !gives_back) kept += ", and glibc kept freed blocks (its default)";
  return "  (" + kept + ", which the prediction does not model; -B onnxruntime:enableCpuMemArena=false," +
         "enableMemPattern=false,mallocMmapThreshold=131072 compares like with like)\n";
}

// Why a configuration's memory was measured only, once (every configuration of a report shares its runtime).
std::string not_predicted_note(const Report& r) {
  for (const auto& run : r.generation->runs)
    if (run.memory && !run.memory->not_predicted.empty()) return "  (not predicted: " + run.memory->not_predicted + ")\n";
  return "";
}

// Weights + KV cache against what the runner held, per phase (docs/memory.md, Decoders).
std::string memory_table(const Report& r) {
  TextTable t;
  t.columns = {{"config"},          {"phase"},           {"weights", true},  {"KV cache", true},
               {"activations", true}, {"predicted", true}, {"measured", true}, {"error", true},
               {"timed requests", true}};
  auto error = [](uint64_t predicted, uint64_t measured) {
    return measured > 0 ? fixed((static_cast<double>(predicted) / static_cast<double>(measured) - 1) * 100, 1) + "%"
                        : std::string("-");
  };
  auto measured = [](uint64_t b) { return b > 0 ? bytes(b) : std::string("-"); };
  for (const auto& run : r.generation->runs) {
    if (!run.memory) continue;
    const KvMemory& m = *run.memory;
    const uint64_t weights = m.weights_bytes + m.prepacked_bytes;
    if (!m.not_predicted.empty()) {  // measured only: the model's sizes beside what the runner held
      for (const bool decode : {false, true}) {
        if (decode && run.gen == 0) continue;
        t.rows.push_back({decode ? "" : run.key().label(), decode ? "decode" : "prefill", bytes(weights),
                          bytes(decode ? m.decode_kv_bytes : m.prefill_kv_bytes), "-", "not predicted",
                          measured(decode ? m.decode_collected_bytes : m.prefill_collected_bytes), "-",
                          measured(decode ? m.decode_measured_bytes : m.prefill_measured_bytes)});
      }
      continue;
    }
    t.rows.push_back({run.key().label(), "prefill", bytes(weights), bytes(m.prefill_kv_bytes),
                      bytes(m.prefill_activations_bytes), bytes(m.prefill_peak_bytes),
                      measured(m.prefill_collected_bytes), error(m.prefill_peak_bytes, m.prefill_collected_bytes),
                      measured(m.prefill_measured_bytes)});
    if (run.gen > 0)
      t.rows.push_back({"", "decode", bytes(weights), bytes(m.decode_kv_bytes), bytes(m.decode_activations_bytes),
                        bytes(m.decode_peak_bytes), measured(m.decode_collected_bytes),
                        error(m.decode_peak_bytes, m.decode_collected_bytes), measured(m.decode_measured_bytes)});
  }
  return t.rows.empty() ? "" : t.render();
}

// The fitted slope, or why none is stated: a series whose KV grows by less than kResolvableKvShare of a step's bytes
// cannot show the KV in TPOT (8 steps of a small decoder add KiB to MB read a step), and a falling line is not the
// cache's doing.
std::string fit_text(const GenerationRun& run) {
  const auto& s = run.by_context;
  if (run.by_context_kv_share && *run.by_context_kv_share < kResolvableKvShare) {
    double mean_bytes = 0;
    for (const auto& p : s) mean_bytes += static_cast<double>(p.bytes) / static_cast<double>(s.size());
    return "no slope stated: the KV read grows by " + bytes(s.back().kv_bytes - s.front().kv_bytes) + " over the "
           "series, " + fixed(*run.by_context_kv_share * 100, 1) + "% of the " +
           bytes(static_cast<uint64_t>(mean_bytes)) +
           " a step reads — too little for TPOT to show (a longer --gen or larger batch widens it)";
  }
  std::string t = fixed(run.tpot_vs_kv.ms_per_mb, 4) + " ms per MB of KV (r " + fixed(run.tpot_vs_kv.r, 2) + ")";
  if (run.tpot_vs_kv.ms_per_mb < 0 && run.tpot_vs_kv.r < -0.5)
    t += ", TPOT falling as the KV grows: something other than the cache sets these steps' time";
  return t;
}

// A few points of the series (first, quartiles, last) and the fitted slope.
std::string context_lines(const Report& r) {
  std::ostringstream out;
  for (const auto& run : r.generation->runs) {
    const auto& s = run.by_context;
    if (s.empty()) continue;
    out << "  " << run.key().label() << ": " << fit_text(run) << "; context→TPOT ms:";
    // The points in order, each once (pushed rather than std::unique'd: GCC 12 at -O1 reports a false
    // -Warray-bounds in the memmove std::unique inlines here).
    std::vector<size_t> at;
    for (size_t i : {size_t{0}, s.size() / 4, s.size() / 2, 3 * s.size() / 4, s.size() - 1})
      if (at.empty() || at.back() != i) at.push_back(i);
    for (size_t i : at) out << " " << s[i].context << "→" << lat(s[i].tpot_ms);
    if (run.by_context_faulted_steps)
      out << " (" << *run.by_context_faulted_steps << " steps with more than " << kQuietStepFaults
          << " page faults left out)";
    out << "\n";
  }
  return out.str();
}

std::string phase_table(const Report& r) {
  TextTable t;
  t.columns = {{"config"},        {"phase"},         {"tokens", true},     {"past", true},       {"step ms", true},
               {"coverage", true}, {"layers", true},  {"MatMuls", true},    {"memory-bound", true},
               {"compute-bound", true}, {"GFLOP", true}};
  for (const auto& run : r.generation->runs)
    for (const auto& p : run.phases) {
      const MatMulBounds b = matmul_bounds(p);
      t.rows.push_back({run.key().label(), to_string(p.phase), std::to_string(p.tokens), std::to_string(p.past),
                        lat(p.latency_ms.median), pct1(p.coverage), std::to_string(p.layers.size()),
                        std::to_string(b.layers), std::to_string(b.memory), std::to_string(b.compute),
                        fixed(static_cast<double>(p.flops) / 1e9, 2)});
    }
  return t.rows.empty() ? "" : t.render();
}

std::string top_layers_table(const PhaseProfile& p, size_t top) {
  std::vector<const Layer*> ls;
  for (const auto& l : p.layers) ls.push_back(&l);
  std::stable_sort(ls.begin(), ls.end(), [](const Layer* a, const Layer* b) { return a->time_ms > b->time_ms; });
  if (ls.size() > top) ls.resize(top);
  TextTable t;
  t.columns = {{"#", true},  {"layer", false, 44}, {"op", false, 16}, {"ms", true},   {"share", true}, {"FLOP/B", true},
               {"GFLOP/s", true}, {"GB/s", true},  {"bound"},          {"eff", true}};
  size_t i = 0;
  for (const Layer* l : ls)
    t.rows.push_back({std::to_string(++i), l->name, l->op, fixed(l->time_ms, 3), pct1(l->share), fixed(l->intensity, 1),
                      fixed(l->gflops, 1), fixed(l->gbps, 1), l->bound.empty() ? "-" : l->bound,
                      l->bound.empty() ? "-" : pct1(l->efficiency)});
  return t.render();
}

}  // namespace

MatMulBounds matmul_bounds(const PhaseProfile& p) {
  MatMulBounds b;
  for (const auto& l : p.layers) {
    if (!is_matmul(l.op)) continue;
    ++b.layers;
    b.memory += l.bound == "memory";
    b.compute += l.bound == "compute";
  }
  return b;
}

std::string generation_summary(const Report& r, size_t top_layers) {
  if (!r.generation) return "not a generation report\n";
  std::ostringstream out;
  out << gen_header(r) << "\n";
  if (r.generation->runs.empty()) {
    out << "(no configuration finished)\n";
  } else {
    out << bench_table(r)
        << "\nlatency in ms (TTFT = prefill until the first tokens are chosen; TPOT = inter-token latency of a decode "
           "step; percentiles nearest-rank):\n"
        << latency_table(r);
    if (const std::string h = headline_table(r); !h.empty())
      out << "\ndecode: bytes streamed per token (weights + KV cache read) and the bandwidth achieved:\n" << h;
    if (const std::string m = memory_table(r); !m.empty())
      out << "\nmemory above the runner's start (predicted = runtime baseline + weights + the step's activations, its "
             "past, present and logits among them, + the copies of its outputs; measured in the memory generation, the "
             "caller's garbage collected before every run; timed requests: with the copies not yet collected):\n"
          << m << allocator_note(r) << not_predicted_note(r);
    if (const std::string c = context_lines(r); !c.empty()) out << "\nTPOT against context (median per context):\n" << c;
    if (const std::string p = phase_table(r); !p.empty()) {
      out << "\nper-layer profiles of one step of each phase (median of profiled iterations; MatMul-class layers on "
             "the roofline):\n"
          << p;
      const GenerationRun& first = r.generation->runs.front();
      for (const auto& ph : first.phases)
        out << "\ntop " << std::min(top_layers, ph.layers.size()) << " layers of the " << to_string(ph.phase)
            << " step, " << first.key().label() << " (past " << ph.past << "):\n"
            << top_layers_table(ph, top_layers);
      if (r.generation->runs.size() > 1) out << "(the other configurations' layers are in the JSON report)\n";
    }
  }
  std::vector<std::string> warnings = roof_warnings(r);
  warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
  for (const auto& run : r.generation->runs)
    for (const auto& w : run.warnings) warnings.push_back(run.key().label() + ": " + w);
  if (!warnings.empty()) {
    out << "\nwarnings:\n";
    for (const auto& w : warnings) out << "  - " << w << "\n";
  }
  if (!r.failures.empty()) {
    out << "\nfailures:\n";
    for (const auto& f : r.failures)
      out << "  - " << f.label() << " [" << f.stage << ", " << f.kind << "] " << f.message << "\n";
  }
  if (r.partial) out << "\ninterrupted: the report holds the configurations that finished\n";
  return out.str();
}

}  // namespace rooflens
