#include "backends/common/serving_child.h"

#include "core/errors.h"

namespace rooflens {

ChildServingInstance::ChildServingInstance(std::unique_ptr<ChildRunner> runner, double load_ms,
                                           std::vector<RunSetting> settings, ServingProfiler profiler)
    : runner_(std::move(runner)), pid_(runner_->pid()), load_ms_(load_ms), settings_(std::move(settings)),
      profiler_(std::move(profiler)) {}

namespace {

nlohmann::json ranges_of(const CallSamples& samples) {
  nlohmann::json ranges = nlohmann::json::array();
  for (const auto& s : samples) ranges.push_back({s.first, s.count});
  return ranges;
}

CallSpan span_of(const nlohmann::json& t) {
  return {static_cast<int64_t>(t.at(0).get<double>() * 1000.0), static_cast<int64_t>(t.at(1).get<double>() * 1000.0)};
}

}  // namespace

bool ChildServingInstance::send(uint64_t tag, const std::vector<CallSamples>& calls) {
  nlohmann::json message{{"op", "infer"}};
  if (calls.size() == 1) {
    message["s"] = ranges_of(calls.front());
  } else {
    message["calls"] = nlohmann::json::array();
    for (const auto& c : calls) message["calls"].push_back(ranges_of(c));
  }
  long long id = 0;
  if (!runner_->send_async(message, id)) {
    if (death_.empty()) death_ = "the " + runner_->config().name + " stopped taking messages";
    return false;
  }
  tags_[id] = tag;
  return true;
}

bool ChildServingInstance::collect(std::vector<InferReply>& out) {
  replies_.clear();
  std::string death;
  const bool alive = runner_->read_replies(replies_, death);
  for (const auto& r : replies_) {
    const auto id = r.body.value("id", -1LL);
    auto it = tags_.find(id);
    if (it == tags_.end()) continue;  // a reply to something else (never sent by this instance)
    InferReply a;
    a.tag = it->second;
    tags_.erase(it);
    a.ok = r.ok();
    if (a.ok) {
      const auto& t = r.body.at("t");  // [start, end] for one call, [[start, end], ...] for several
      if (t.at(0).is_array()) {
        for (const auto& one : t) a.calls.push_back(span_of(one));
      } else {
        a.calls.push_back(span_of(t));
      }
    } else {
      a.error = r.message.empty() ? r.code : r.message;
    }
    out.push_back(std::move(a));
  }
  if (!alive && death_.empty()) death_ = death;
  return alive;
}

void ChildServingInstance::kill() { runner_->kill_now(); }

Measurement ChildServingInstance::profile(int64_t skip) {
  if (!profiler_) throw BackendError("profile", "error", "this runtime cannot profile its layers under load", "");
  return profiler_(*runner_, skip);
}

void prepare_samples(ChildRunner& runner, nlohmann::json message, std::chrono::milliseconds timeout,
                     const std::string& subject) {
  message["op"] = "prepare";
  RunnerReply r = runner.ask(std::move(message), timeout);
  if (r.ok()) return;
  throw BackendError("run", r.status == ReplyStatus::error ? "error" : to_string(r.status),
                     subject + ": preparing samples failed: " + r.message, r.stderr_tail, r.code, r.message);
}

}  // namespace rooflens
