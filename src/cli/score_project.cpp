#include "cli/score_project.h"

#include <iostream>

#include <fmt/format.h>

#include "cli/roofs.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/history.h"
#include "db/score_store.h"
#include "db/store.h"
#include "hw/datasheets.h"
#include "whatif/score_projection_efficiency.h"

namespace rooflens::cli {
namespace {

// This machine's latest measured score of the projection's suite and mode, if the database holds one.
std::optional<ScoreResult> latest_measured(const ScoreProjectOptions& o, const ScoreResult& projected) {
  if (o.db.off) return std::nullopt;
  try {
    auto store = db::ResultStore::open(db::resolve_db_url(o.db.url));
    db::ScoreQuery q{projected.suite, fingerprint_of(projected.machine.machine, nullptr).id, "", true};
    std::optional<ScoreResult> out;
    for (auto& s : db::load_scores(store->connection(), q))
      if (s.result.quick == projected.quick) out = std::move(s.result);
    return out;
  } catch (const db::DbError& e) {
    if (!o.quiet) std::cerr << "rooflens score: no calibration: " << e.what() << "\n";
    return std::nullopt;
  }
}

// Every stored measured score of the suite (any machine, either mode): what the projection may learn efficiency
// from (whatif/score_projection_efficiency.h picks the ones that teach the target).
std::vector<EfficiencyEvidence> stored_evidence(const ScoreProjectOptions& o, const std::string& suite) {
  std::vector<EfficiencyEvidence> out;
  if (o.db.off) return out;
  try {
    auto store = db::ResultStore::open(db::resolve_db_url(o.db.url));
    for (auto& s : db::load_scores(store->connection(), db::ScoreQuery{suite, "", "", true}))
      out.push_back({s.machine, std::move(s.result)});
  } catch (const db::DbError& e) {
    if (!o.quiet) std::cerr << "rooflens score: efficiency not learned (database): " << e.what() << "\n";
  }
  return out;
}

}  // namespace

int store_score_result(const DbFlags& db, const ScoreResult& r, bool quiet) {
  if (db.off) return 0;
  try {
    const std::string url = db::resolve_db_url(db.url);
    auto s = db::ResultStore::open(url);
    auto id = db::store_score(s->connection(), r);
    if (!quiet)
      std::cerr << "rooflens score: " << (id ? "stored" : "already stored") << " in " << db::parse_db_url(url).shown
                << (id ? " (score " + *id + ")" : std::string()) << "\n";
    return 0;
  } catch (const UserError& e) {
    std::cerr << "rooflens score: warning: score not stored: " << e.what() << "; the result files stand\n";
    return kExitDbFailed;
  }
}

bool projects_this_machine(const std::string& device) { return device == "this" || device == "measured"; }

ProjectionTarget projection_target(const std::string& device, bool quiet) {
  ProjectionTarget t;
  if (projects_this_machine(device)) {
    std::optional<HardwareInfo> roofs = obtain_roofs(RoofsRequest{false, "", quiet, "score --project"});
    if (!roofs) throw UserError("--project " + device + ": this machine's roofs could not be measured");
    t.roofs = *roofs;
    t.device = "this machine (" + roofs->machine.model + ", measured roofs)";
    t.roofs_source = "measured";
    return t;
  }
  const hw::DatasheetDevice& d = hw::find_datasheet_device(device);
  t.roofs = hw::datasheet_hardware(d);
  t.device = d.name;
  t.roofs_source = "datasheet";
  return t;
}

std::string projection_text(const ScoreResult& r, const std::vector<CalibrationRow>& calibration) {
  std::string out = fmt::format("PROJECTED score of {} (suite {}, {}) — not measured\n", r.device, r.suite,
                                r.quick ? "quick" : "full");
  auto line = [&](const ScoreAggregate& a) {
    // The explanation ends with where the efficiency came from ("... efficiency 1.31× learned").
    const auto at = a.explanation.find("efficiency"), end = a.explanation.find("; incomplete");
    out += a.score > 0 ? fmt::format("  {:<18} {:>8.0f}   roofs {:.2f}× × {}{}\n", a.name, a.score, a.roof_ratio,
                                     at == std::string::npos ? fmt::format("efficiency {:.2f}×", a.efficiency)
                                                             : a.explanation.substr(at, end - at),
                                     a.incomplete ? "  incomplete" : "")
                       : fmt::format("  {:<18} {:>8}\n", a.name, "-");
  };
  line(r.overall);
  for (const auto& c : r.categories) line(c);
  for (const auto& w : r.warnings) out += "  note: " + w + "\n";
  if (!calibration.empty()) {
    out += "calibration on this machine: projected / measured - 1 (over the categories both scored)\n";
    for (const auto& c : calibration)
      out += fmt::format("  {:<18} projected {:>8.0f}  measured {:>8.0f}  error {:+.1f}%\n", c.name, c.projected,
                         c.measured, c.error * 100);
  }
  return out;
}

int run_score_project(const ScoreProjectOptions& o, const std::vector<ProjectionWorkload>& workloads,
                      ProjectionSetup setup) {
  o.db.validate();
  ProjectionTarget target = projection_target(o.device, o.quiet);
  if (setup.created_at.empty()) setup.created_at = now_iso8601_utc();
  EfficiencyTarget who{setup.suite, setup.quick, "", ""};
  if (projects_this_machine(o.device)) {
    who.isa_class = isa_class_of(setup.machine.machine);
    who.machine = fingerprint_of(setup.machine.machine, nullptr).id;
  }
  const std::vector<EfficiencyEvidence> evidence = stored_evidence(o, setup.suite);
  const EfficiencyTable efficiency(evidence, who);
  ScoreResult r = project_score(workloads, setup, target, &efficiency);
  std::vector<CalibrationRow> calibration;
  if (projects_this_machine(o.device))
    if (auto measured = latest_measured(o, r)) calibration = calibration_error(r, *measured);
  if (!o.output.empty()) write_file_atomically(o.output, score_to_json(r));
  std::cout << (o.json ? score_to_json(r) : projection_text(r, calibration));
  return store_score_result(o.db, r, o.quiet);
}

}  // namespace rooflens::cli
