#pragma once
// `rooflens capacity --self-test`: the generator's own cost. It serves a one-Identity model (zoo/identity.h), whose
// runtime call does nothing, so what is measured is the path around it: the engine alone against a null system,
// then Offline through the real runners (its throughput: the most queries per second rooflens can issue, pipe and
// answer here), then a Poisson server run at half that rate (the issue lag and the latency the path adds).
#include <atomic>
#include <functional>
#include <string>

#include "backends/backend.h"
#include "capacity/loadgen/settings.h"
#include "core/report.h"

namespace rooflens::capacity {

// `settings` and `levers` as the flags gave them (the self-test sets the scenarios, and instances, threads and
// concurrency the flags left at their defaults); `backend` must serve (Backend::serving()). The report's capacity
// section holds the Offline run with the server point after it, and the self-test's figures. Throws UserError when
// a run fails.
Report run_self_test(const Requested& settings, const LeverLists& levers, Backend& backend,
                     const std::atomic<bool>* interrupted, const std::function<void(const std::string&)>& progress);

}  // namespace rooflens::capacity
