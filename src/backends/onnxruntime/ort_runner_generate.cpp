// OrtRunner's decoder-generation messages (docs/runner-protocol.md, `generate` and `generate_profiled`): the message
// JSON from the typed structs, the reply back into them. The KV cache stays in the runner; only names, sizes
// and timings cross the pipe (and logits, when a test asks for them).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <system_error>

#include "backends/onnxruntime/ort_runner.h"
#include "core/base64.h"

namespace rooflens::ort {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json io_json(const DecoderBinding& io) {
  json past = json::array(), present = json::array();
  for (const auto& [k, v] : io.past) past.push_back({k, v});
  for (const auto& [k, v] : io.present) present.push_back({k, v});
  json j = {{"input_ids", io.input_ids}, {"logits", io.logits}, {"past", past}, {"present", present},
            {"kv_heads", io.kv_heads}, {"head_dim", io.head_dim}, {"vocab", io.vocab}, {"kv_dtype", io.kv_dtype},
            {"ids_dtype", io.ids_dtype}, {"mask_dtype", io.mask_dtype}, {"position_dtype", io.position_dtype}};
  if (!io.attention_mask.empty()) j["attention_mask"] = io.attention_mask;
  if (!io.position_ids.empty()) j["position_ids"] = io.position_ids;
  return j;
}

json generation_message(const char* op, const DecoderBinding& io, const GenerateShape& s) {
  return {{"op", op},          {"io", io_json(io)},          {"batch", s.batch},
          {"seed", s.seed},    {"prompt_tokens", s.prompt_tokens}, {"gen_tokens", s.gen_tokens},
          {"next_token", s.next_token}};
}

std::vector<double> numbers(const json& j, const char* key) {
  std::vector<double> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& v : j[key]) out.push_back(v.get<double>());
  return out;
}

std::vector<std::vector<int64_t>> id_rows(const json& j, const char* key) {
  std::vector<std::vector<int64_t>> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& row : j[key]) out.push_back(row.get<std::vector<int64_t>>());
  return out;
}

std::optional<PhaseRuns> phase(const json& phases, const char* name) {
  if (!phases.is_object() || !phases.contains(name)) return std::nullopt;
  const json& p = phases[name];
  PhaseRuns r;
  r.first_run = p.value("first_run", 0);
  r.warmup_iterations = p.value("warmup_iterations", 0);
  r.iterations = p.value("iterations", 0);
  r.past = p.value("past", int64_t{0});
  r.tokens = p.value("tokens", int64_t{0});
  r.run_latencies_ms = numbers(p, "run_latencies_ms");
  return r;
}

// V8's external memory (ArrayBuffers: feeds, output copies, copies not yet collected) and heap at their largest
// after a run of each phase, as increases over their values before the first request.
CallerMemory caller_memory(const json& js) {
  auto above = [&js](const char* key, const char* start) {
    const uint64_t v = js.value(key, uint64_t{0}), s = js.value(start, uint64_t{0});
    return v > s ? v - s : 0;
  };
  CallerMemory c;
  c.prefill_buffers_bytes = above("prefill_external_bytes", "start_external_bytes");
  c.decode_buffers_bytes = above("decode_external_bytes", "start_external_bytes");
  c.heap_bytes =
      std::max(above("prefill_heap_bytes", "start_heap_bytes"), above("decode_heap_bytes", "start_heap_bytes"));
  c.measured = true;
  return c;
}

}  // namespace

GenerateResult OrtRunner::generate(const DecoderBinding& io, const GenerateShape& shape, const TimingOptions& timing,
                                   std::chrono::milliseconds timeout, bool return_logits) {
  json message = generation_message("generate", io, shape);
  message["timing"] = json::parse(timing_to_json(timing).dump());
  message["return_logits"] = return_logits;
  message["memory_generation"] = true;  // one untimed generation first, collecting the caller's garbage (memory.md)
  json r = call(std::move(message), timeout);
  GenerateResult out;
  for (const auto& q : r.value("requests", json::array())) {
    GeneratedRequest g;
    g.ttft_ms = q.value("ttft_ms", 0.0);
    g.prefill_run_ms = q.value("prefill_run_ms", 0.0);
    g.steps_ms = numbers(q, "steps_ms");
    g.step_runs_ms = numbers(q, "step_runs_ms");
    if (q.contains("prefill_page_faults")) g.prefill_page_faults = q.at("prefill_page_faults").get<int64_t>();
    if (q.contains("step_page_faults")) q.at("step_page_faults").get_to(g.step_page_faults);
    out.requests.push_back(std::move(g));
  }
  out.wall_s = r.value("wall_s", 0.0);
  out.warmup_requests = r.value("warmup_requests", 0);
  out.warmup_ms = r.value("warmup_ms", 0.0);
  out.stop_reason = r.value("stop_reason", std::string());
  out.warnings = reply_warnings(r);
  out.tokens = id_rows(r, "tokens");
  out.prompt_ids = id_rows(r, "prompt_ids");
  for (const auto& l : r.value("logits", json::array())) {
    const std::string bytes = base64_decode(l.value("data_b64", std::string()));
    std::vector<float> rows(bytes.size() / sizeof(float));
    std::memcpy(rows.data(), bytes.data(), rows.size() * sizeof(float));
    out.logits.push_back(std::move(rows));
  }
  out.peak_rss_bytes = r.value("peak_rss_bytes", uint64_t{0});
  out.rss_bytes = r.value("rss_bytes", uint64_t{0});
  if (const json m = r.value("memory", json()); m.is_object()) {
    out.run_peak_bytes = m.value("run_peak_bytes", uint64_t{0});
    out.run_peak_reset = m.value("peak_reset", false);
    out.prefill_peak_bytes = m.value("prefill_peak_bytes", uint64_t{0});
    out.decode_peak_bytes = m.value("decode_peak_bytes", uint64_t{0});
    if (const json js = m.value("js", json()); js.is_object()) out.caller = caller_memory(js);
    if (const json c = m.value("collected", json()); c.is_object()) {
      CollectedMemory cm;
      cm.prefill_peak_bytes = c.value("prefill_peak_bytes", uint64_t{0});
      cm.decode_peak_bytes = c.value("decode_peak_bytes", uint64_t{0});
      if (const json js = c.value("js", json()); js.is_object()) cm.caller = caller_memory(js);
      out.collected = cm;
    }
  }
  return out;
}

GenerateProfiledResult OrtRunner::generate_profiled(const DecoderBinding& io, const GenerateShape& shape,
                                                    const TimingOptions& timing, std::chrono::milliseconds timeout,
                                                    const fs::path& tmp_dir, bool keep_profile, bool dump_graph) {
  json message = generation_message("generate_profiled", io, shape);
  message["timing"] = json::parse(timing_to_json(timing).dump());
  if (dump_graph) message["dump_graph"] = true;
  if (!tmp_dir.empty()) message["tmp_dir"] = fs::absolute(tmp_dir).string();
  json r = call(std::move(message), timeout);
  GenerateProfiledResult out;
  out.prefill = phase(r.value("phases", json::object()), "prefill");
  out.decode = phase(r.value("phases", json::object()), "decode");
  out.session_create_ms = r.value("session_create_ms", 0.0);
  out.peak_rss_bytes = r.value("peak_rss_bytes", uint64_t{0});
  out.optimized_model = take_graph(r);
  out.stopped_early = r.value("stopped_early", std::string());
  out.warnings = reply_warnings(r);
  const fs::path file = r.value("profile_file", std::string());
  const fs::path dir = r.value("profile_dir", std::string());
  auto cleanup = [&] {
    std::error_code ec;
    if (!keep_profile && !dir.empty()) fs::remove_all(dir, ec);
  };
  try {
    if (file.empty()) throw UserError(model_.string() + ": the runner returned no profile file");
    out.profile = read_ort_profile(file);
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
  if (keep_profile) out.profile_file = file;
  return out;
}

void OrtRunner::serve_begin(const DecoderBinding& io, uint64_t seed, const std::string& next_token, bool keep_tokens,
                            std::chrono::milliseconds timeout) {
  call({{"op", "serve_begin"}, {"io", io_json(io)}, {"seed", seed}, {"next_token", next_token},
        {"keep_tokens", keep_tokens}},
       timeout);
}

DecoderStepTimes OrtRunner::serve_step(const DecoderStep& step, std::chrono::milliseconds timeout) {
  json rows = json::array();
  for (const auto& r : step.rows)
    rows.push_back({r.request, r.context, r.tokens,
                    (r.prefill ? 1 : 0) | (r.completes_prefill ? 2 : 0) | (r.padding ? 4 : 0)});
  const json reply = call({{"op", "serve_step"}, {"rows", rows}, {"joined", step.joined}, {"left", step.left},
                           {"finished", step.finished}},
                          timeout);
  DecoderStepTimes t;
  const json& span = reply.at("t");
  t.start_ns = static_cast<int64_t>(std::llround(span.at(0).get<double>() * 1000));
  t.end_ns = static_cast<int64_t>(std::llround(span.at(1).get<double>() * 1000));
  t.kv_copy_bytes = reply.value("kv_copy_bytes", int64_t{0});
  return t;
}

std::map<int64_t, std::vector<int64_t>> OrtRunner::serve_end(std::chrono::milliseconds timeout) {
  const json reply = call({{"op", "serve_end"}}, timeout);
  std::map<int64_t, std::vector<int64_t>> out;
  const auto tokens = reply.find("tokens");
  if (tokens == reply.end() || !tokens->is_object()) return out;
  for (auto t = tokens->begin(); t != tokens->end(); ++t) out[std::stoll(t.key())] = t.value().get<std::vector<int64_t>>();
  return out;
}

}  // namespace rooflens::ort
