#pragma once
// ONNX Runtime Web writes no files, so the graph its kernels are nodes of comes from the native build of the same ORT
// core, optimised with the web inference session's options minus the x86-only NCHWc layout pass
// (runners/ort/web_build.mjs's executedGraphOf). Kept only when the web profile agrees with it.
#include "core/measurement.h"
#include "core/run_settings.h"

namespace rooflens::ort {

// Checks `profiled.executed_graph` against every kernel of the web profile: a kernel is a node of the graph with the
// same op, by name, or an unnamed node of that op (ORT's expansions of function ops, named by the profile). When one
// is not, the graph is dropped (the mapping then uses the user's graph and ORT's names alone) and a warning says
// which kernel. Returns the run setting that says where the graph came from.
RunSetting check_web_executed_graph(Measurement& profiled);

}  // namespace rooflens::ort
