#pragma once
// `rooflens score --project DEVICE`: the suite projected onto a datasheet device's roofs, or onto this machine's own
// measured roofs (DEVICE "this" or "measured": then each figure's efficiency is learned from the measured scores of
// this machine's CPU class in the database — whatif/score_projection_efficiency.h — and the calibration error against
// this machine's latest measured score of the same suite and mode is printed). The score command binds ScoreProjectOptions and hands over the
// suite's workloads as projection inputs (whatif/score_projection.h) with the suite's reference roofs; the result
// is printed, written with -o, and stored (kind "projected") like a measured score.
#include <string>
#include <vector>

#include "cli/db_flags.h"
#include "whatif/score_projection.h"

namespace rooflens::cli {

struct ScoreProjectOptions {
  std::string device;     // --project: a datasheet device (hw --device lists them), "this" or "measured"
  std::string output;     // -o FILE: the projected rooflens.score/1
  bool json = false;      // --json: the result on stdout
  bool quiet = false;
  DbFlags db;
};

bool projects_this_machine(const std::string& device);  // "this" | "measured"

// The target's roofs: a datasheet device's, or this machine's (cached or measured now). UserError naming --project
// for a device the table lacks.
ProjectionTarget projection_target(const std::string& device, bool quiet);

// Projects `workloads` (setup: the suite's categories and reference roofs, who projects) and reports. 0, or the
// database's failure code (kExitDbFailed) after the result was printed and written.
int run_score_project(const ScoreProjectOptions& o, const std::vector<ProjectionWorkload>& workloads,
                      ProjectionSetup setup);

// Stores a score result (measured or projected) in the database --db names, after its files are written: 0 when
// stored, already there or --no-db; kExitDbFailed after one warning line otherwise (the result files stand). What
// `rooflens score` calls once its result is final (not after Ctrl-C: a partial result is not stored).
int store_score_result(const DbFlags& db, const ScoreResult& r, bool quiet);

// Text: the projected overall and categories with their roof ratios, labelled PROJECTED, and (when given) the
// calibration rows against this machine's measured score.
std::string projection_text(const ScoreResult& projected, const std::vector<CalibrationRow>& calibration);

}  // namespace rooflens::cli
