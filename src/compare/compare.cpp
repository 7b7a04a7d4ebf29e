#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "compare/capacity_items.h"
#include "compare/layer_match.h"
#include "compare/why_slower.h"
#include "compare/verdict.h"
#include "core/errors.h"

namespace rooflens {
namespace {

bool failing(const std::string& s) { return s == status::kFail || s == status::kTimeout || s == status::kCrash; }

std::string kind_name(const std::string& kind) { return kind == kReportSource ? "a profile report" : "bench results"; }

CompareSourceInfo info(const CompareSource& s) {
  return CompareSourceInfo{s.path, s.kind, s.description, s.items.size(), s.partial};
}

// Two single-model reports of differently named models (model_v1.onnx vs model_v2.onnx) are still the
// comparison the user asked for: their items are matched on the configuration alone.
bool match_by_config_only(const CompareSource& base, const CompareSource& head) {
  if (base.kind != kReportSource || base.items.empty() || head.items.empty()) return false;
  return base.items.front().model != head.items.front().model;
}

struct Pairing {
  std::vector<std::optional<size_t>> new_of_base;  // per BASE item: its NEW item
  std::vector<bool> new_used;
};

Pairing pair_by_key(const CompareSource& base, const CompareSource& head, bool config_only) {
  auto key = [config_only](const CompareItem& i) { return (config_only ? std::string() : i.model) + '\n' + i.config; };
  std::map<std::string, size_t> new_at;
  for (size_t i = 0; i < head.items.size(); ++i) new_at.emplace(key(head.items[i]), i);
  Pairing p{std::vector<std::optional<size_t>>(base.items.size()), std::vector<bool>(head.items.size(), false)};
  for (size_t i = 0; i < base.items.size(); ++i) {
    auto it = new_at.find(key(base.items[i]));
    if (it == new_at.end()) continue;
    p.new_of_base[i] = it->second;
    p.new_used[it->second] = true;
  }
  return p;
}

// A profile failure names the configuration as requested ("default", "batch=8"), a run the one that ran
// ("batch=1 threads=2"). Left-over failures are paired with the one left-over run on the other side they could be.
bool could_pair(const CompareItem& a, const CompareItem& b) {
  if (!a.profile_config || !b.profile_config || a.config_requested == b.config_requested) return false;
  const auto& req = a.config_requested ? *a.profile_config : *b.profile_config;
  const auto& ran = a.config_requested ? *b.profile_config : *a.profile_config;
  return could_be_same_config(req, ran);
}

void pair_failures_with_runs(const CompareSource& base, const CompareSource& head, Pairing& p) {
  for (size_t i = 0; i < base.items.size(); ++i) {
    if (p.new_of_base[i]) continue;
    std::optional<size_t> only;
    int candidates = 0;
    for (size_t j = 0; j < head.items.size(); ++j)
      if (!p.new_used[j] && could_pair(base.items[i], head.items[j])) {
        only = j;
        ++candidates;
      }
    if (candidates != 1) continue;
    // The NEW item must not fit another left-over BASE item either, or the pairing would be a guess.
    int reverse = 0;
    for (size_t k = 0; k < base.items.size(); ++k)
      if (!p.new_of_base[k] && could_pair(base.items[k], head.items[*only])) ++reverse;
    if (reverse != 1) continue;
    p.new_of_base[i] = only;
    p.new_used[*only] = true;
  }
}

// A run whose threads are unknown (0: an imported profile of another runtime) is the same configuration as a run
// that differs only in its threads. Left-over runs are paired that way when the pairing is unambiguous.
bool same_but_unknown_threads(const CompareItem& a, const CompareItem& b) {
  if (!a.profile_config || !b.profile_config || a.config_requested || b.config_requested) return false;
  const RunKey& x = *a.profile_config;
  const RunKey& y = *b.profile_config;
  return (x.threads == 0) != (y.threads == 0) && x.backend == y.backend && x.batch == y.batch && x.dims == y.dims;
}

void pair_unknown_threads(const CompareSource& base, const CompareSource& head, Pairing& p, std::vector<std::string>& notes) {
  for (size_t i = 0; i < base.items.size(); ++i) {
    if (p.new_of_base[i]) continue;
    std::optional<size_t> only;
    int candidates = 0;
    for (size_t j = 0; j < head.items.size(); ++j)
      if (!p.new_used[j] && same_but_unknown_threads(base.items[i], head.items[j])) only = j, ++candidates;
    if (candidates != 1) continue;
    int reverse = 0;
    for (size_t k = 0; k < base.items.size(); ++k)
      if (!p.new_of_base[k] && same_but_unknown_threads(base.items[k], head.items[*only])) ++reverse;
    if (reverse != 1) continue;
    p.new_of_base[i] = only;
    p.new_used[*only] = true;
    notes.push_back("BASE '" + base.items[i].config + "' paired with NEW '" + head.items[*only].config +
                    "': one side does not know its threads (an imported profile)");
  }
}

ItemComparison compare_item(const CompareItem* b, const CompareItem* n, const CompareOptions& o) {
  ItemComparison c;
  const CompareItem& any = b ? *b : *n;
  c.model = any.model;
  c.config = n && n->status == status::kPass ? n->config : any.config;  // a run's label over a failure's
  if (b && n && b->model != n->model) c.model = b->model + " → " + n->model;
  if (b) c.base_status = b->status, c.base_error = b->error;
  if (n) c.new_status = n->status, c.new_error = n->error;
  c.verdict = status_verdict(c.base_status, c.new_status);
  if (!c.verdict.empty()) return c;
  bool timed = !b->samples_ms.empty() || !n->samples_ms.empty() || b->stats.n > 0 || n->stats.n > 0;
  if (timed) {
    c.latency = compare_latency(LatencySide{b->samples_ms, b->repetitions, b->stats.median},
                                LatencySide{n->samples_ms, n->repetitions, n->stats.median}, o);
    c.verdict = latency_verdict(*c.latency, o);
  } else {
    c.verdict = verdict::kNotTimed;
  }
  if (b->layers && n->layers && !(b->layers->empty() && n->layers->empty()))
    c.layers = compare_layers(*b->layers, *n->layers);
  if (c.latency && c.latency->ratio > 1) c.why_slower = why_slower(*b, *n, c.layers ? &*c.layers : nullptr);
  if (b->peak_rss_bytes && n->peak_rss_bytes) {
    c.base_peak_rss_bytes = b->peak_rss_bytes;
    c.new_peak_rss_bytes = n->peak_rss_bytes;
  }
  return c;
}

std::string counted(size_t n, const std::string& what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

void add_notes(const CompareSource& base, const CompareSource& head, bool config_only, Comparison& c) {
  if (config_only)
    c.notes.push_back("the reports are of different models (BASE " + base.items.front().model + ", NEW " +
                      head.items.front().model + "): matched by configuration");
  for (const auto* s : {&base, &head})
    if (s->partial)
      c.notes.push_back(std::string(s == &base ? "BASE" : "NEW") +
                        " was interrupted before every item ran: missing items show as only on the other side");
  // Turns on a live runner share one session's level of the machine: measured here they were paired with the
  // other side's turn by turn; from two files made at different times nothing pairs them.
  auto has_turns = [](const CompareSource& s) {
    return std::any_of(s.items.begin(), s.items.end(), [](const CompareItem& i) { return i.live_turns; });
  };
  const bool base_turns = has_turns(base), head_turns = has_turns(head);
  if (!c.options.paired && (base_turns || head_turns))
    c.notes.push_back(std::string(base_turns && head_turns ? "BASE's and NEW's" : base_turns ? "BASE's" : "NEW's") +
                      " runs after the first are turns of one live runner (compare's or profile --reference's "
                      "--turns), not fresh runs: they share one session's level of the machine, which the test "
                      "between two files made at different times takes for a change. Compare the models "
                      "themselves (rooflens compare A.onnx B.onnx), judge history beside the reference "
                      "(history --check), or compare reports of --repeat fresh runners");
  if (!base.runtime.empty() && !head.runtime.empty() && base.runtime != head.runtime)
    c.notes.push_back("runtimes differ: BASE " + base.runtime + ", NEW " + head.runtime);
  if (base.backend_options != head.backend_options) {
    auto shown = [](const std::string& o) { return o.empty() ? std::string("defaults") : o; };
    c.notes.push_back("backend options differ: BASE " + shown(base.backend_options) + ", NEW " +
                      shown(head.backend_options));
  }
}

struct SingleRunCount {
  size_t tested = 0;        // items whose latency was tested on the samples of one run on a side
  size_t flagged = 0;       // of them, called a regression or an improvement
  bool base = false, head = false;  // which side had single runs
};

SingleRunCount count_single_runs(const Comparison& c) {
  SingleRunCount s;
  for (const auto& i : c.items) {
    if (!i.latency || !i.latency->single_run()) continue;
    ++s.tested;
    s.flagged += i.verdict == verdict::kRegression || i.verdict == verdict::kImprovement;
    s.base |= i.latency->base_runs < 2;
    s.head |= i.latency->new_runs < 2;
  }
  return s;
}

std::string single_run_note(const SingleRunCount& s) {
  std::string sides = s.base && s.head ? "BASE and NEW were" : s.base ? "BASE was" : "NEW was";
  return "run-to-run variation is not measured for " + counted(s.tested, "item") + ": " + sides +
         " timed in one run per configuration, so the test sees only the noise inside that run, and the next run "
         "of the very same code can differ by more (another process, frequency, memory layout). Their verdicts" +
         (s.flagged ? " (" + std::to_string(s.flagged) + " called a regression or an improvement)" : std::string()) +
         " may reflect the machine, not the change: time both sides with --repeat 5 (profile or bench) so the "
         "runs are compared";
}

}  // namespace

std::string status_verdict(const std::string& b, const std::string& n) {
  if (b == status::kAbsent) return verdict::kOnlyNew;
  if (n == status::kAbsent) return verdict::kOnlyBase;
  if (b == status::kPass && n == status::kPass) return "";
  if (failing(n)) return failing(b) ? verdict::kStillFailing : verdict::kNewFailure;
  if (failing(b)) return n == status::kPass ? verdict::kFixed : verdict::kStatusChanged;
  if (b == status::kSkip && n == status::kSkip) return verdict::kSkipped;
  return verdict::kStatusChanged;  // pass <-> skip
}

Comparison compare_sources(const CompareSource& base_in, const CompareSource& head, const CompareOptions& o) {
  // Per-layer runs under load (capacity --profile-layers) each meet the same single-stream BASE run.
  std::vector<std::string> pairing_notes;
  std::optional<CompareSource> widened;
  if (std::any_of(head.items.begin(), head.items.end(),
                  [](const CompareItem& i) { return i.profile_config && i.profile_config->dims.count("instance"); })) {
    widened = base_in;
    pair_instances_with_base(*widened, head, pairing_notes);
  }
  const CompareSource& base = widened ? *widened : base_in;
  if (base.kind != head.kind)
    throw UsageError("BASE " + base.path + " is " + kind_name(base.kind) + " but NEW " + head.path + " is " +
                     kind_name(head.kind) + ": compare two of the same kind");
  Comparison c;
  c.base = info(base);
  c.head = info(head);
  c.options = o;
  bool config_only = match_by_config_only(base, head);
  Pairing p = pair_by_key(base, head, config_only);
  pair_failures_with_runs(base, head, p);
  pair_unknown_threads(base, head, p, pairing_notes);
  for (size_t i = 0; i < base.items.size(); ++i)
    c.items.push_back(compare_item(&base.items[i], p.new_of_base[i] ? &head.items[*p.new_of_base[i]] : nullptr, o));
  for (size_t j = 0; j < head.items.size(); ++j)
    if (!p.new_used[j]) c.items.push_back(compare_item(nullptr, &head.items[j], o));
  add_notes(base, head, config_only, c);
  c.notes.insert(c.notes.end(), pairing_notes.begin(), pairing_notes.end());
  SingleRunCount single = count_single_runs(c);
  if (single.tested) c.notes.push_back(single_run_note(single));
  VerdictCounts n = count_verdicts(c);
  if (n.regressions && n.improvements)
    c.notes.push_back(counted(n.regressions, "regression") + " and " + counted(n.improvements, "improvement") +
                      " at once: if nothing that matters changed between BASE and NEW, the machine's speed did "
                      "(load, frequency)" +
                      (single.tested ? std::string(" — one run per side cannot show that; repeat both with --repeat 5")
                                     : std::string(" between the two sessions; re-run both on a quiet machine")));
  return c;
}

double parse_threshold(const std::string& text) {
  std::string t = text;
  bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  double v = 0;
  size_t used = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size() || !std::isfinite(v))
    throw UsageError("--threshold " + text + ": not a number (write 5% or 0.05)");
  if (pct) v /= 100;
  else if (v >= 1) throw UsageError("--threshold " + text + ": ambiguous (write " + text + "% or a fraction like 0.05)");
  if (v < 0 || v >= 1) throw UsageError("--threshold " + text + ": must be at least 0 and below 100%");
  return v;
}

}  // namespace rooflens
