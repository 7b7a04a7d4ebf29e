#pragma once
// `rooflens compare BASE.onnx NEW.onnx`: the two models measured by compare itself, interleaved — BASE, NEW, NEW,
// BASE, ... (ABBA) — so whatever the machine does meanwhile (a neighbour's compile, a frequency change, the host)
// touches both sides alike instead of deciding the verdict. Then the two profile reports are compared as any two
// reports are, pair by pair.
//
// --interleave turns (the default): one full run per side in a fresh runner (with the profiled run for layers),
// then both models stay loaded in a live runner each, idle between turns, and take --turns turns of
// --turn-iterations iterations (use_turns, profile/turns.h): a pair is ~0.1 s apart instead of the ~1.5 s two
// fresh runners need, shorter than the spells in which this kind of host runs fast or slow. --interleave runs:
// every run a fresh runner (--repeat).
//
// The two sides may also be one model on two runtimes (`compare model.onnx -B onnxruntime -B ortweb`): each side has
// its own backend, and the same turns make the per-layer ratio one runtime's against the other's.
#include "backends/backend.h"
#include "core/report.h"
#include "profile/profile.h"

namespace rooflens {

struct MeasuredPair {
  Report base, head;
};

// `base` on `base_backend` and `head` on `head_backend` (their specs: the options' backends; the same backend for
// both when two models are compared) stepped in turns, their layers placed on `hw` (null: no roofs) and on the
// roofs of an engine a side ran in (`hooks.engine_roofs`). `hooks.progress` sees both sides as one bar ("BASE ..."
// and "NEW ..."; "done" at the end); `hooks.interrupted` stops both. Throws UserError / UsageError as `profile` does
// for either model.
MeasuredPair measure_pair(const ProfileOptions& base, const ProfileOptions& head, Backend& base_backend,
                          Backend& head_backend, const ProfileHooks& hooks, const HardwareInfo* hw = nullptr);

}  // namespace rooflens
