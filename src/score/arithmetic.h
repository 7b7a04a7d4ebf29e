#pragma once
// The score's arithmetic, pure functions of the raw figures (docs/score.md, "Formulas"):
//   per figure and repetition   score_i = reference_time / time_i × 1000   (time: ms per sample, prompt or token)
//   per figure                  score = geometric mean of score_i; 95% CI t-based on log score_i
//   per category                geometric mean of its valid figures' scores; CI from the figures' own spreads,
//                               workloads independent (Welch–Satterthwaite degrees of freedom, arithmetic.cpp)
//   overall                     geometric mean of the categories, CI the same way over every figure
//   decomposition               score / 1000 = roof_ratio × efficiency, roof_ratio = reference t_roof / t_roof
// `score --from` runs the same functions on a stored result, so a score is reproducible from its raw figures.
#include <string>
#include <vector>

#include "core/score.h"

namespace rooflens::score {

inline constexpr const char* kCiMethod =
    "95% intervals on log scores: a figure's t-based over its repetitions (n-1 degrees of freedom); a category's "
    "and the overall's from the variances of the workloads' parts, workloads independent (Welch-Satterthwaite "
    "degrees of freedom)";


// exp(mean(log x) ± t(0.975, n-1) × sd(log x) / sqrt(n)); {0, 0} with fewer than two values.
ScoreInterval log_t_interval(const std::vector<double>& xs);

// Time per unit of a raw figure: latency figures are already ms; rates (per second) become 1000 / rate.
double time_ms_of(const ScoreFigure& f, double raw);

// Fills value, time_ms, score, ci, drift, drift_beyond_ci, roof_ratio and efficiency of a figure from its
// repetitions, reference_time_ms, roof.time_ms and reference_roof_time_ms. `valid`: false leaves the score at 0.
void score_figure(ScoreFigure& f, bool valid);

// A category's aggregate over the figures of `workloads` that belong to it (every workload's figures counted as
// members; valid ones — status valid, score > 0 — aggregated).
ScoreAggregate aggregate_category(const std::string& name, const std::vector<ScoreWorkload>& workloads);

// The overall score from the categories (each must carry its members; a category with no valid figure makes the
// overall incomplete and is left out of the geometric mean). Needs the workloads for the per-repetition interval.
ScoreAggregate aggregate_overall(const std::vector<ScoreAggregate>& categories,
                                 const std::vector<ScoreWorkload>& workloads);

// The one line saying what drives an aggregate: "int8 throughput 0.62× the reference: int8 compute roof 0.50×,
// efficiency 1.24×".
std::string explain(const ScoreAggregate& a, const std::vector<ScoreWorkload>& workloads);

// Recomputes every figure, category and the overall score of `r` from its raw figures (categories in `order`).
void rescore(ScoreResult& r, const std::vector<std::string>& order);

}  // namespace rooflens::score
