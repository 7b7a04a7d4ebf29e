#pragma once
// What a run ran with and where its time between kernels went, as terminal lines: the run's settings (value and
// source of every performance option, the thread pool the runtime's profile showed) and the dispatch breakdown
// under the layer table's "between kernels" row.
#include <string>

#include "core/report.h"

namespace rooflens {

// "  batch=1 threads=2: intra_op_threads 2 [rooflens] (profile: pool 2, 2 working); runtime defaults: spinning on, ..."
// for each run that carries settings (runs with the same settings as the one before are not repeated); "" when
// none does.
std::string settings_lines(const Report& r);

// "page faults a run ..." with one line per run whose runner counted them, when any took one a run or more (a run
// whose outputs land on memory the process never touched pays a fault per 4 KiB page inside its time); "" otherwise.
std::string page_fault_lines(const Report& r);

// The parts of "between kernels" the runtime timed, one indented line; "" when the run has no breakdown.
std::string dispatch_line(const ProfileRun& run);

}  // namespace rooflens
