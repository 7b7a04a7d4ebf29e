#pragma once
// `rooflens score`'s driver: the suite's workloads in order (all, or --quick's subset), each built from the zoo,
// validated and measured by its kind; a workload that fails (runtime error, crash, timeout) is recorded as failed
// with its reason and the rest goes on; Ctrl-C ends the workload under way and marks the rest "not run". Then the
// arithmetic (arithmetic.h) turns the raw figures into scores. Also the two ways a suite file is (re)made:
// reference outputs from the reference backend, and reference constants from a stored full result.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/score.h"
#include "score/suite.h"

namespace rooflens::score {

struct ScoreOptions {
  bool quick = false;
  std::vector<std::string> workloads;   // --workloads: only these ids (a subset is always incomplete)
  int64_t repetitions = 0;              // --repetitions: override the mode's (0: the suite's)
  double offline_seconds = -1;          // override the mode's (< 0: the suite's)
  bool validate_only = false;           // --validate: every workload's outputs against the references, no figure
};

struct ScoreContext {
  Backend* backend = nullptr;
  Backend* reference_backend = nullptr;
  const HardwareInfo* roofs = nullptr;
  ScoreMachine machine;
  int64_t cores = 1;
  std::filesystem::path work_dir;
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string&)> progress;
  // After each workload, the result so far (scored): the caller may write it (a partial result survives a crash).
  std::function<void(const ScoreResult&)> on_workload;
  bool test_hooks = false;              // honour the suite's test_hook fields (ROOFLENS_TEST_HOOKS=1)
};

// The workloads a run covers, in suite order. Throws UsageError naming an unknown --workloads id.
std::vector<const WorkloadDef*> selected(const Suite& suite, const ScoreOptions& o);

ScoreResult run_suite(const Suite& suite, const ScoreOptions& o, const ScoreContext& ctx);

// The categories of a result, in suite order: those its workloads' figures belong to.
std::vector<std::string> categories_of(const Suite& suite, const ScoreResult& r);

// `score --from`: the stored result scored again from its raw figures with this suite's constants (the same
// suite version only: UserError otherwise).
ScoreResult rescore_stored(const Suite& suite, ScoreResult stored);

// `score --write-references`: every workload's reference outputs regenerated on ctx.reference_backend.
Suite with_references(const Suite& suite, const ScoreContext& ctx);

// `score --write-references --reference-result FILE...`: the reference constants (times, roof times) of each
// result's mode (full or quick) set from that result, measured on the reference configuration with this code's
// harness for the suite (UserError naming the difference otherwise: constants must mean what the code measures; the
// build is recorded as the result states it), and recorded with that harness; `configuration` describes the configuration, `provisional` marks constants that are not the
// reference configuration's yet, `roofs` are its measured roofs (what `score --project` scales from; none: the
// suite then cannot be projected).
struct ConstantsSource {
  std::vector<ScoreResult> results;     // one per mode at most
  std::string configuration;
  bool provisional = false;
  std::optional<HardwareInfo> roofs;
};
Suite with_constants(const Suite& suite, const ConstantsSource& source);

}  // namespace rooflens::score
