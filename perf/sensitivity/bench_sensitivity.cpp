// `make bench`, part 7: can the CI gate see a real +10% work change on this machine, and does it stay quiet
// when nothing changed? (issue 18's acceptance). Two zoo models of the same architecture, resnet18 at 112 px
// (BASE) and at 118 px (NEW: +11% FLOPs, the same layers), saved under the same name (the model changed, the
// trend did not), judged the two ways a CI gate can:
//
// history --check: sessions of `rooflens profile --db` with the gate's settings (kGateProfileArgs: each session
//   times the model in turns with a fixed reference model, a frozen copy of BASE, and the check judges the ratio
//   of the two — docs/history.md, "A CI gate"), in this order
//   B1 .. B10                                      history to start with
//   then 20 times: B, and (the first 10 times) N   one new base session each step, a NEW session after it
// real change, 10 trials: history --check with N_k as the latest run over the 10 base sessions before it;
// identical, 20 pairs: history --check with B_j latest (j > 10). Each check runs on a fresh database holding just
// those 11 sessions (rooflens db import of lines from rooflens db export): every trial sees as much history.
//
// compare: `rooflens compare BASE.onnx NEW.onnx` with the gate's settings (kGateCompareArgs: compare measures both
// models itself, interleaved: one fresh run per side, then turns of 10 iterations on two live runners), 10 trials;
// and BASE.onnx against a copy of itself, 20 pairs. For information, the table also judges pairs of the separate profile sessions above (compare B_k N_k, B_(j-1) B_j):
// what comparing two reports made at different times can resolve on this machine.
//
// Targets: real change flagged (a regression) in >= 9 of 10, identical flagged (anything but within noise or
// below threshold) in <= 1 of 20.
//
// Environment: ROOFLENS_SENS_PROFILE_ARGS / ROOFLENS_SENS_COMPARE_ARGS (the timing flags; defaults: the gate's),
// ROOFLENS_SENS_TRIALS (10), ROOFLENS_SENS_PAIRS (20), ROOFLENS_SENS_BASE/ROOFLENS_SENS_NEW (image sizes, 112/118),
// ROOFLENS_SENS_MODEL (zoo model, resnet18), ROOFLENS_SENS_PARTS (history,compare; one of them to run one part),
// ROOFLENS_BENCH_KEEP=1 keeps the work directory (sessions.csv lists every session's run medians, load and the
// others' CPUs, for exploring where the variance comes from).
// The machine must be quiet: the table states the load average before and after and how many CPUs other processes
// kept busy during the sessions; figures taken while others compile say more about them than about rooflens.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text_table.h"
#include "zoo/registry.h"
#include "zoo/save.h"

#include "../common/bench_util.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using namespace bench_util;

// The settings of a CI gate (docs/history.md, "A CI gate"): the model timed in turns with a fixed reference model
// (--reference, added by the bench: one fresh run each, then 100 turns of 10 iterations on two live runners), so
// `history --check` judges the ratio, which the host's level of the day does not move.
// ROOFLENS_SENS_REFERENCE=off measures without (the previous gate: "--repeat 10 --duration 0.5 --warmup-ms 300
// --no-layers --realtime", fresh runners judged in ms).
constexpr const char* kGateProfileArgs = "--no-layers";
// compare's own defaults for models: one fresh 0.5 s run per side, then 100 ABBA turns of 10 iterations on two
// live runners (--interleave turns)
constexpr const char* kGateCompareArgs = "";

std::string env_text(const char* name, const std::string& def) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : def;
}
int env_int(const char* name, int def) { return std::atoi(env_text(name, std::to_string(def)).c_str()); }

double loadavg() {
  double l = 0;
  std::ifstream("/proc/loadavg") >> l;
  return l;
}

struct Shell {
  fs::path work;
  int run(const std::string& cmd, std::string* out = nullptr) const {
    fs::path o = work / "cmd.out", e = work / "cmd.err";
    int status = std::system((cmd + " >" + quote(o.string()) + " 2>" + quote(e.string())).c_str());
    if (out) *out = slurp(o) + slurp(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

struct Session {
  bool is_new = false;
  int index = 0;             // B index or N index, 1-based
  fs::path report;
  std::vector<double> run_medians;
  double centre = 0, others_cpus = 0, load = 0;
  double ratio = 0;          // to the reference: median of the pairs' ratios (0 without a reference)
};

std::vector<double> run_medians_of(const json& run) {
  std::vector<double> s = run["latencies_ms"].get<std::vector<double>>(), out;
  std::vector<long> reps = run.contains("repetitions") ? run["repetitions"].get<std::vector<long>>()
                                                       : std::vector<long>{static_cast<long>(s.size())};
  size_t at = 0;
  for (long n : reps) {
    std::vector<double> part(s.begin() + static_cast<long>(at), s.begin() + static_cast<long>(at + n));
    std::sort(part.begin(), part.end());
    size_t k = part.size();
    out.push_back(k % 2 ? part[k / 2] : (part[k / 2 - 1] + part[k / 2]) / 2);
    at += static_cast<size_t>(n);
  }
  return out;
}

// The median over pairs of the run's repetition medians over the reference's (what history --check judges).
double reference_ratio_of(const json& run) {
  if (!run.contains("reference")) return 0;
  std::vector<double> a = run_medians_of(run), b = run_medians_of(run["reference"]), r;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) r.push_back(a[i] / b[i]);
  std::sort(r.begin(), r.end());
  size_t k = r.size();
  return k == 0 ? 0 : k % 2 ? r[k / 2] : std::sqrt(r[k / 2 - 1] * r[k / 2]);
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / static_cast<double>(v.size()));
}

// The sample standard deviation of the logs: the session-to-session spread as a fraction.
double log_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = 0, q = 0;
  for (double c : v) m += std::log(c);
  m /= static_cast<double>(v.size());
  for (double c : v) q += (std::log(c) - m) * (std::log(c) - m);
  return std::sqrt(q / static_cast<double>(v.size() - 1));
}

struct Counts {
  int real = 0, same = 0, trials = 0, pairs = 0;
};

// The verdict of a compare run (its JSON's first item), or "error: ...".
std::string compare_verdict(const Shell& sh, const std::string& cmd) {
  std::string out;
  int rc = sh.run(cmd + " --format json", &out);
  json j = json::parse(out.substr(0, out.rfind('}') + 1), nullptr, false);
  if (rc != 0 || j.is_discarded() || !j.contains("items") || j["items"].empty())
    return "error: " + out.substr(0, 300);
  return j["items"][0]["verdict"].get<std::string>();
}

bool flagged_as_change(const std::string& verdict) { return !(verdict == "within noise" || verdict == "below threshold"); }

}  // namespace

int main() {
  const std::string profile_args = env_text("ROOFLENS_SENS_PROFILE_ARGS", kGateProfileArgs);
  const std::string compare_args = env_text("ROOFLENS_SENS_COMPARE_ARGS", kGateCompareArgs);
  const std::string parts = env_text("ROOFLENS_SENS_PARTS", "history,compare");
  const bool do_history = parts.find("history") != std::string::npos, do_compare = parts.find("compare") != std::string::npos;
  const int trials = std::max(1, env_int("ROOFLENS_SENS_TRIALS", 10)), pairs = std::max(1, env_int("ROOFLENS_SENS_PAIRS", 20));
  const int base_px = env_int("ROOFLENS_SENS_BASE", 112), new_px = env_int("ROOFLENS_SENS_NEW", 118);
  const std::string zoo_model = env_text("ROOFLENS_SENS_MODEL", "resnet18");
  const bool with_reference = env_text("ROOFLENS_SENS_REFERENCE", "on") != "off";
  const fs::path rooflens = fs::read_symlink("/proc/self/exe").parent_path() / "rooflens";
  const std::string bin = quote(rooflens.string());
  char tmpl[] = "/tmp/rooflens-sens-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const Shell sh{tmpl};
  const fs::path db = sh.work / "all.db";
  for (const char* d : {"base", "new", "copy", "checks", "reference"}) fs::create_directories(sh.work / d);
  const std::string name = zoo_model;
  for (auto [dir, px] : {std::pair{"base", base_px}, std::pair{"new", new_px}}) {
    rooflens::zoo::ZooOptions o;
    o.image = px;
    auto built = rooflens::zoo::make_model(rooflens::zoo::find_model(zoo_model), o);
    rooflens::zoo::save_model(built.model, sh.work / dir / (name + ".onnx"), false);
  }
  fs::copy_file(sh.work / "base" / (name + ".onnx"), sh.work / "copy" / (name + ".onnx"));
  // The gate's reference: a frozen copy of BASE under a name of its own (what a CI repository would commit).
  const fs::path reference = sh.work / "reference" / (name + "-reference.onnx");
  fs::copy_file(sh.work / "base" / (name + ".onnx"), reference);
  const std::string gate_args =
      profile_args + (with_reference ? " --reference " + quote(reference.string()) : std::string());
  const std::string base_model = quote((sh.work / "base" / (name + ".onnx")).string());
  const double load_start = loadavg();
  std::printf("Sensitivity of the CI gate: %s at %d px (BASE) vs %d px (NEW); %d trials, %d identical pairs; load "
              "average at start %.2f on %ld CPUs\n  history --check after `rooflens profile %s`\n  compare: `rooflens "
              "compare BASE.onnx NEW.onnx %s`\n",
              zoo_model.c_str(), base_px, new_px, trials, pairs, load_start, ::sysconf(_SC_NPROCESSORS_ONLN),
              (profile_args + (with_reference ? " --reference REF.onnx (a frozen copy of BASE)" : "")).c_str(),
              compare_args.c_str());
  std::fflush(stdout);
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::vector<double> others;

  rooflens::TextTable t{{{"judged by"}, {"real change flagged", true}, {"identical flagged", true}, {"target", true},
                         {"verdict"}},
                        {}};
  bool ok = true;
  auto row = [&](const std::string& what, const Counts& c, bool targeted) {
    bool hit = c.real * 10 >= 9 * c.trials && c.same * 20 <= c.pairs;
    t.rows.push_back({what, fmt::format("{}/{}", c.real, c.trials), fmt::format("{}/{}", c.same, c.pairs),
                      targeted ? ">= 90%, <= 5%" : "(information)", targeted ? (hit ? "ok" : "MISS") : "-"});
    if (targeted) ok = ok && hit;
  };
  std::string history_summary;

  if (do_history) {
    // The sessions, in time order.
    std::vector<Session> sessions;
    int b = 0, n = 0;
    auto add = [&sessions](bool is_new, int index) {
      Session s;
      s.is_new = is_new;
      s.index = index;
      sessions.push_back(s);
    };
    for (int i = 0; i < 10; ++i) add(false, ++b);
    for (int k = 0; k < std::max(trials, pairs); ++k) {
      if (k < pairs) add(false, ++b);
      if (k < trials) add(true, ++n);
    }
    for (size_t i = 0; i < sessions.size(); ++i) {
      Session& s = sessions[i];
      s.report = sh.work / fmt::format("{}{}.json", s.is_new ? "N" : "B", s.index);
      const fs::path model = sh.work / (s.is_new ? "new" : "base") / (name + ".onnx");
      double busy0 = machine_busy_s(), ours0 = children_cpu_s();
      auto w0 = std::chrono::steady_clock::now();
      std::string out;
      int rc = sh.run(bin + " profile " + quote(model.string()) + " " + gate_args + " --no-roofs -q -o " +
                          quote(s.report.string()) + " --db " + quote(db.string()),
                      &out);
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      if (rc != 0) {
        std::fprintf(stderr, "bench_sensitivity: profile failed (rc %d): %s\n", rc, out.c_str());
        return 1;
      }
      s.others_cpus = std::max(0.0, ((machine_busy_s() - busy0) - (children_cpu_s() - ours0)) / wall);
      s.load = loadavg();
      others.push_back(s.others_cpus);
      json r = json::parse(slurp(s.report));
      s.run_medians = run_medians_of(r["runs"][0]);
      s.centre = geomean(s.run_medians);
      s.ratio = reference_ratio_of(r["runs"][0]);
      std::fprintf(stderr, "bench_sensitivity: session %zu/%zu %s%d: %.3f ms (%zu runs), ÷ reference %.3f, others' CPUs "
                   "%.2f, load %.2f, %.0f s\n",
                   i + 1, sessions.size(), s.is_new ? "N" : "B", s.index, s.centre, s.run_medians.size(), s.ratio,
                   s.others_cpus, s.load, elapsed());
    }
    // Every session as a line of history, in the same order (export sorts by time).
    if (sh.run(bin + " db export -q --db " + quote(db.string()) + " -o " + quote((sh.work / "all.jsonl").string())) != 0)
      return 1;
    std::vector<std::string> lines;
    {
      std::istringstream in(slurp(sh.work / "all.jsonl"));
      for (std::string l; std::getline(in, l);) lines.push_back(l);
    }
    if (lines.size() != sessions.size()) {
      std::fprintf(stderr, "bench_sensitivity: %zu sessions stored, %zu expected\n", lines.size(), sessions.size());
      return 1;
    }
    auto check_flags = [&](size_t latest, int id) {
      fs::path f = sh.work / "checks" / fmt::format("{}.jsonl", id), d = sh.work / "checks" / fmt::format("{}.db", id);
      std::string text;
      int taken = 0;
      for (size_t i = latest; i-- > 0 && taken < 10;)
        if (!sessions[i].is_new) text = lines[i] + "\n" + text, ++taken;
      std::ofstream(f) << text << lines[latest] << "\n";
      sh.run(bin + " db import -q " + quote(f.string()) + " --db " + quote(d.string()));
      return sh.run(bin + " history --check --machine this --db " + quote(d.string())) == 1;
    };
    Counts chk{0, 0, trials, pairs}, sep{0, 0, trials, pairs};
    int id = 0;
    std::vector<double> base_centres, new_centres;
    for (size_t i = 0; i < sessions.size(); ++i) {
      const Session& s = sessions[i];
      (s.is_new ? new_centres : base_centres).push_back(s.centre);
      if (!s.is_new && s.index <= 10) continue;  // the history to start with
      size_t prev = i;  // the base session just before
      while (prev > 0 && sessions[--prev].is_new) {
      }
      const std::string separate = bin + " compare " + quote(sessions[prev].report.string()) + " " + quote(s.report.string());
      if (s.is_new) {
        chk.real += check_flags(i, ++id);
        sep.real += compare_verdict(sh, separate) == "regression";
      } else {
        chk.same += check_flags(i, ++id);
        sep.same += flagged_as_change(compare_verdict(sh, separate));
      }
    }
    row("rooflens history --check", chk, true);
    row("compare of two separate profile sessions", sep, false);
    std::vector<double> base_ratios, new_ratios;
    for (const auto& s : sessions)
      if (s.ratio > 0) (s.is_new ? new_ratios : base_ratios).push_back(s.ratio);
    history_summary = fmt::format(
        "profile sessions: BASE {:.3f} ms, NEW {:.3f} ms ({:+.1f}%); BASE session-to-session spread {:.1f}% (sd of "
        "log centres)\n",
        geomean(base_centres), geomean(new_centres), (geomean(new_centres) / geomean(base_centres) - 1) * 100,
        log_sd(base_centres) * 100);
    if (!base_ratios.empty() && !new_ratios.empty())
      history_summary += fmt::format(
          "÷ reference (what the check judged): BASE {:.3f}, NEW {:.3f} ({:+.1f}%); BASE session-to-session spread "
          "{:.1f}%\n",
          geomean(base_ratios), geomean(new_ratios), (geomean(new_ratios) / geomean(base_ratios) - 1) * 100,
          log_sd(base_ratios) * 100);
    std::ofstream csv(sh.work / "sessions.csv");
    csv << "session,image_px,centre_ms,reference_ratio,others_cpus,load,run_medians_ms\n";
    for (const auto& s : sessions) {
      csv << (s.is_new ? "N" : "B") << s.index << "," << (s.is_new ? new_px : base_px) << "," << s.centre << "," << s.ratio
          << "," << s.others_cpus << "," << s.load << ",";
      for (double r : s.run_medians) csv << r << " ";
      csv << "\n";
    }
  }

  if (do_compare) {
    Counts cmp{0, 0, trials, pairs};
    for (int k = 0; k < std::max(trials, pairs); ++k) {
      auto measure = [&](const char* other, bool want_regression, int& count) {
        double busy0 = machine_busy_s(), ours0 = children_cpu_s();
        auto w0 = std::chrono::steady_clock::now();
        std::string v = compare_verdict(sh, bin + " compare " + base_model + " " +
                                                quote((sh.work / other / (name + ".onnx")).string()) + " -q " + compare_args);
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        others.push_back(std::max(0.0, ((machine_busy_s() - busy0) - (children_cpu_s() - ours0)) / wall));
        count += want_regression ? v == "regression" : flagged_as_change(v);
        std::fprintf(stderr, "bench_sensitivity: compare BASE %s: %s, others' CPUs %.2f, load %.2f, %.0f s\n",
                     want_regression ? "NEW" : "copy", v.c_str(), others.back(), loadavg(), elapsed());
      };
      if (k < trials) measure("new", true, cmp.real);
      if (k < pairs) measure("copy", false, cmp.same);
    }
    row("rooflens compare BASE.onnx NEW.onnx", cmp, true);
  }

  const double load_end = loadavg();
  std::sort(others.begin(), others.end());
  std::printf("%s", t.render().c_str());
  std::printf("%sothers' CPUs (busy CPUs other processes used meanwhile) median %.2f, max %.2f; load average %.2f at start, "
              "%.2f at end; %.0f s\n",
              history_summary.c_str(), others.empty() ? 0 : others[others.size() / 2], others.empty() ? 0 : others.back(),
              load_start, load_end, elapsed());
  if (std::getenv("ROOFLENS_BENCH_KEEP")) std::printf("kept %s (sessions.csv: every session)\n", sh.work.c_str());
  else fs::remove_all(sh.work);
  return ok ? 0 : 1;
}
