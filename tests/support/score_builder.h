#pragma once
// Score results for the tests of what reads them (database, listing, leaderboard): hand-made records with the
// shape `rooflens score` gives them — a machine, categories with intervals and roof ratio × efficiency, an overall.
#include <string>
#include <utility>
#include <vector>

#include "core/score.h"

namespace rooflens::testing {

inline ScoreAggregate score_aggregate(const std::string& name, double score, double roof_ratio, bool incomplete = false) {
  ScoreAggregate a;
  a.name = name;
  a.score = score;
  a.ci = score > 0 ? ScoreInterval{score * 0.96, score * 1.04} : ScoreInterval{};
  a.roof_ratio = score > 0 ? roof_ratio : 0;
  a.efficiency = score > 0 && roof_ratio > 0 ? score / 1000 / roof_ratio : 0;
  a.members = 2;
  a.valid_members = incomplete ? 1 : 2;
  a.incomplete = incomplete;
  a.explanation = name + " explained";
  return a;
}

// A measured full score of suite v1 on a machine named `cpu`, categories {name, score, roof ratio}.
inline ScoreResult score_result(const std::string& cpu, double overall,
                                const std::vector<std::pair<std::string, double>>& categories,
                                const std::string& created_at = "2026-03-01T10:00:00.000000Z") {
  ScoreResult r;
  r.created_at = created_at;
  r.machine.machine.vendor = "GenuineTest";
  r.machine.machine.model = cpu;
  r.machine.machine.sockets = 1;
  r.machine.machine.cores = 4;
  r.machine.machine.threads = 8;
  r.machine.machine.memory_bytes = 16ull << 30;
  r.machine.machine.os = "Debian GNU/Linux 12";
  r.machine.machine.kernel = "6.1.0";
  r.machine.machine.isa = {"avx2", "fma", "avx512_vnni"};
  r.machine.cores_used = 4;
  r.machine.tool.version = "0.1.0";
  r.machine.runtime.name = "onnxruntime";
  r.machine.runtime.version = "1.30.0";
  r.machine.runtime.runtime = "onnxruntime-node 1.30.0 on node 20";
  r.machine.roofs = "measured";
  r.repetitions = 3;
  r.ci_method = "t-based";
  double rr = 1.25;
  for (const auto& [name, score] : categories) r.categories.push_back(score_aggregate(name, score, rr += 0.25));
  r.overall = score_aggregate("overall", overall, 1.5);
  for (const auto& c : r.categories) r.overall.incomplete = r.overall.incomplete || c.incomplete;
  r.seconds = 300;
  return r;
}

}  // namespace rooflens::testing
