// Text and JSON of a run's settings, observed threads and dispatch breakdown. Read strictly: a field of a present
// object is required unless the schema marks it optional, and a source outside the closed set is refused.
#include "core/run_settings.h"

#include "core/errors.h"
#include "core/json_fields.h"

namespace rooflens {

const char* to_string(SettingSource s) {
  switch (s) {
    case SettingSource::user: return "user";
    case SettingSource::rooflens: return "rooflens";
    case SettingSource::runtime_default: return "runtime default";
    case SettingSource::observed: return "observed";
  }
  return "?";
}

std::string settings_text(const std::vector<RunSetting>& settings) {
  std::string out;
  for (const auto& s : settings)
    out += (out.empty() ? "" : " · ") + s.name + " " + s.value + " (" + to_string(s.source) + ")";
  return out;
}

const RunSetting* find_setting(const std::vector<RunSetting>& settings, const std::string& name) {
  for (const auto& s : settings)
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

SettingSource source_of(const json& v) {
  const std::string s = v.get<std::string>();
  for (SettingSource x : {SettingSource::user, SettingSource::rooflens, SettingSource::runtime_default,
                          SettingSource::observed}) {
    json probe = x;
    if (probe.get<std::string>() == s) return x;
  }
  throw UserError("settings[].source must be one of \"user\", \"rooflens\", \"runtime_default\", \"observed\", not \"" +
                  s + "\"");
}

template <class T>
void put_setting(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <class T>
void take(const json& j, const char* key, std::optional<T>& v) {
  if (j.contains(key)) v = j.at(key).get<T>();
}

}  // namespace

void to_json(json& j, const RunSetting& s) {
  j = json{{"name", s.name}, {"value", s.value}, {"source", s.source}, {"option", s.option}, {"note", s.note}};
}
void from_json(const json& j, RunSetting& s) {
  j.at("name").get_to(s.name);
  j.at("value").get_to(s.value);
  s.source = source_of(j.at("source"));
  j.at("option").get_to(s.option);
  j.at("note").get_to(s.note);
}

void to_json(json& j, const ThreadsObserved& t) {
  j = json{{"pool", t.pool}};
  put_setting(j, "working", t.working);
}
void from_json(const json& j, ThreadsObserved& t) {
  j.at("pool").get_to(t.pool);
  take(j, "working", t.working);
  if (t.pool < 1 || (t.working && (*t.working < 0 || *t.working > t.pool)))
    throw UserError("threads_observed: pool " + std::to_string(t.pool) + " / working " +
                    (t.working ? std::to_string(*t.working) : "-") + " is not a pool and a part of it");
}

void to_json(json& j, const DispatchBreakdown& d) {
  j = json{{"kernels", d.kernels}};
  put_setting(j, "outside_executor_ms", d.outside_executor_ms);
  put_setting(j, "executor_gaps_ms", d.executor_gaps_ms);
  put_setting(j, "fences_ms", d.fences_ms);
  put_setting(j, "longest_gap_ms", d.longest_gap_ms);
  put_setting(j, "profiler_ms", d.profiler_ms);
  put_setting(j, "profiler_gap_ms", d.profiler_gap_ms);
  put_setting(j, "profiler_bookkeeping_ms", d.profiler_bookkeeping_ms);
  put_setting(j, "coverage_without_profiler", d.coverage_without_profiler);
  put_setting(j, "parallel_kernels", d.parallel_kernels);
  put_setting(j, "pool_handoff_ms", d.pool_handoff_ms);
  put_setting(j, "pool_wait_ms", d.pool_wait_ms);
}
void from_json(const json& j, DispatchBreakdown& d) {
  j.at("kernels").get_to(d.kernels);
  take(j, "outside_executor_ms", d.outside_executor_ms);
  take(j, "executor_gaps_ms", d.executor_gaps_ms);
  take(j, "fences_ms", d.fences_ms);
  take(j, "longest_gap_ms", d.longest_gap_ms);
  take(j, "profiler_ms", d.profiler_ms);
  take(j, "profiler_gap_ms", d.profiler_gap_ms);
  take(j, "profiler_bookkeeping_ms", d.profiler_bookkeeping_ms);
  take(j, "coverage_without_profiler", d.coverage_without_profiler);
  for (const auto& [name, v] : {std::pair{"profiler_gap_ms", d.profiler_gap_ms},
                                {"profiler_bookkeeping_ms", d.profiler_bookkeeping_ms},
                                {"coverage_without_profiler", d.coverage_without_profiler}})
    if (v && !(*v >= 0))
      throw UserError(std::string("dispatch.") + name + ": " + std::to_string(*v) + " is not a time or share (>= 0)");
  take(j, "parallel_kernels", d.parallel_kernels);
  take(j, "pool_handoff_ms", d.pool_handoff_ms);
  take(j, "pool_wait_ms", d.pool_wait_ms);
}

}  // namespace rooflens
