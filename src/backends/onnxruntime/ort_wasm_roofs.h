#pragma once
// The WebAssembly roofs the runner measures (`wasm_roofs`, runners/ort/wasm_roofs.mjs; docs/runner-protocol.md) as an
// engine's roofs of the report (core/report_hardware.h EngineRoofs): compute roofs and the bandwidth sweep as the
// runner measured them, memory levels found on the sweep as `rooflens hw` finds the native ones (hw/engine_roofs.h).
#include <string>

#include <nlohmann/json.hpp>

#include "core/report_hardware.h"

namespace rooflens::ort {

// "wasm:node" | "wasm:chromium": the engine of the web build's host.
std::string wasm_engine(const std::string& host);

// The runner's reply to `wasm_roofs`, for `engine`: its compute roofs and sweep (the levels are found where every
// engine's roofs are, hw::engine_roofs_here). Throws UserError on a reply without its fields.
EngineRoofs wasm_roofs_from_reply(const nlohmann::json& reply, const std::string& engine);

}  // namespace rooflens::ort
