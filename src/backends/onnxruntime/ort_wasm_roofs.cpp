#include "backends/onnxruntime/ort_wasm_roofs.h"

#include "core/errors.h"
#include "core/history.h"

namespace rooflens::ort {
namespace {

using json = nlohmann::json;

// "WebAssembly (SIMD128) in node 20.20.2 (V8 11.3.244.8-node.38)", from the reply's `engine` object.
std::string runtime_of(const json& engine) {
  std::string where = engine.contains("chromium") ? "Chromium " + engine.value("chromium", std::string())
                                                  : "node " + engine.value("node", std::string());
  if (engine.contains("v8")) where += " (V8 " + engine.value("v8", std::string()) + ")";
  std::string isa = engine.value("relaxed_simd", false) ? "SIMD128, relaxed SIMD" : "SIMD128";
  return "WebAssembly (" + isa + ") in " + where;
}

}  // namespace

std::string wasm_engine(const std::string& host) { return host == "chromium" ? "wasm:chromium" : "wasm:node"; }

EngineRoofs wasm_roofs_from_reply(const json& reply, const std::string& engine) {
  if (!reply.contains("compute") || !reply.contains("sweep") || !reply.contains("engine"))
    throw UserError("the ONNX Runtime runner's wasm_roofs reply lacks compute, sweep or engine");
  EngineRoofs e;
  e.engine = engine;
  e.runtime = runtime_of(reply.at("engine"));
  e.measured_at = now_iso8601_utc();
  e.quick = reply.value("quick", false);
  for (const json& c : reply.at("compute"))
    e.compute.push_back({c.at("name").get<std::string>(), c.at("isa").get<std::string>(),
                         c.at("dtype").get<std::string>(), c.at("threads").get<int64_t>(), c.at("gflops").get<double>()});
  for (const json& p : reply.at("sweep"))
    e.sweep.push_back({p.at("kernel").get<std::string>(), p.at("threads").get<int64_t>(),
                       p.at("working_set_bytes").get<uint64_t>(), p.at("gbps").get<double>()});
  if (reply.contains("notes")) reply.at("notes").get_to(e.notes);
  return e;
}

}  // namespace rooflens::ort
