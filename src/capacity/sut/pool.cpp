#include "capacity/sut/pool.h"

#include <poll.h>
#include <signal.h>

#include <algorithm>

#include <fmt/format.h>

#include "backends/common/cpu_budget.h"
#include "capacity/loadgen/engine.h"

namespace rooflens::capacity {

int64_t usable_cores() { return cpu_budget().cores; }
namespace {

timespec timespec_of(int64_t ns) {
  if (ns < 0) ns = 0;
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

}  // namespace

RunnerPool::RunnerPool(Serving& serving, const PoolSpec& spec, const std::function<void(const std::string&)>& progress)
    : spec_(spec), dispatcher_(spec.instances, spec.rules) {
  for (int32_t i = 0; i < spec.instances; ++i) {
    if (progress) progress(fmt::format("starting instance {} of {}", i + 1, spec.instances));
    ServingSpec s = spec.serving;
    if (static_cast<size_t>(i) < spec.cpus.size()) s.cpus = spec.cpus[static_cast<size_t>(i)];
    try {
      instances_.push_back(serving.start(s));
    } catch (BackendError& e) {
      throw BackendError(e.stage, e.kind, fmt::format("instance {}: {}", i, e.what()), e.stderr_tail, e.code, e.detail);
    }
    alive_.push_back(true);
    calls_.push_back(0);
  }
}

RunnerPool::~RunnerPool() = default;  // each instance's runner is asked to quit, then reaped

std::string RunnerPool::cpus_of(int32_t i) const {
  return static_cast<size_t>(i) < spec_.cpus.size() ? cpu_list_text(spec_.cpus[static_cast<size_t>(i)]) : "";
}

void RunnerPool::issue(const IssuedQuery& q) { dispatcher_.enqueue({q.id, q.first_sample, q.samples, q.issued_ns}); }

// Up to the plan's calls per message to an instance (1: a message per call). One reply comes for the whole message,
// so its queries complete together: for Offline, whose latencies nobody judges, it saves the pipe round trip and a
// wake-up of this process per call.
void RunnerPool::begin_run(const RunPlan& plan) {
  spec_.rules.calls_per_message = std::max<int64_t>(1, plan.calls_per_message);
  dispatcher_.set_calls_per_message(spec_.rules.calls_per_message);
}

void RunnerPool::pump(int64_t now) {
  for (OutgoingMessage& r : dispatcher_.messages(now)) send(r.instance, std::move(r.calls));
}

void RunnerPool::send(int32_t instance, std::vector<Assignment> calls) {
  std::vector<CallSamples> wire;
  for (const Assignment& c : calls) {
    CallSamples ranges;
    for (const auto& q : c.queries) ranges.push_back({q.first_sample, q.samples});
    wire.push_back(std::move(ranges));
  }
  const uint64_t tag = next_tag_++;
  const int64_t sent = now_ns();  // before the write: the runner may start at once
  // A send to a runner that is gone fails quietly here: its end of file comes next at poll, which fails the
  // message with the instance's own last words.
  (void)instances_[static_cast<size_t>(instance)]->send(tag, wire);
  calls_[static_cast<size_t>(instance)] += static_cast<int64_t>(calls.size());
  sent_.emplace(tag, SentMessage{instance, std::move(calls), sent, false});
}

// The record of query `q` of call `c` of message `r` (an abandoned query's call never ran: batch 0).
QueryDone RunnerPool::held(const SentMessage& r, const Assignment& c, const PendingQuery& q, QueryStatus status,
                           int64_t completed_ns) {
  QueryDone d;
  d.id = q.id;
  d.instance = r.instance;
  d.batch = status == QueryStatus::abandoned ? 0 : c.samples;
  d.sent_ns = r.sent_ns;
  d.completed_ns = completed_ns;
  d.status = status;
  return d;
}

// Every query a message held, failed with `why`.
void RunnerPool::fail_held(const SentMessage& r, const std::string& why, int64_t now,
                           std::vector<QueryDone>& done) const {
  for (const Assignment& c : r.calls)
    for (const auto& q : c.queries) {
      done.push_back(held(r, c, q, QueryStatus::failed, now));
      done.back().error = why;
    }
}

void RunnerPool::on_reply(const InferReply& r, int64_t now, std::vector<QueryDone>& done) {
  auto it = sent_.find(r.tag);
  if (it == sent_.end()) return;
  SentMessage message = std::move(it->second);
  sent_.erase(it);
  for (size_t k = 0; k < message.calls.size(); ++k) dispatcher_.finished(message.instance);
  if (message.discard) return;
  const std::string who =
      fmt::format("instance {} (pid {})", message.instance, instances_[static_cast<size_t>(message.instance)]->pid());
  if (!r.ok) return fail_held(message, fmt::format("{}: {}", who, r.error), now, done);
  if (r.calls.size() != message.calls.size())
    return fail_held(
        message, fmt::format("{}: answered {} call(s) of a message of {}", who, r.calls.size(), message.calls.size()),
        now, done);
  for (size_t k = 0; k < message.calls.size(); ++k)
    for (const auto& q : message.calls[k].queries) {
      done.push_back(held(message, message.calls[k], q, QueryStatus::ok, now));
      done.back().start_ns = r.calls[k].start_ns;
      done.back().end_ns = r.calls[k].end_ns;
    }
}

void RunnerPool::on_death(int32_t i, const std::string& why, std::vector<QueryDone>& done) {
  if (!alive_[static_cast<size_t>(i)]) return;
  alive_[static_cast<size_t>(i)] = false;
  dispatcher_.disable(i);
  const std::string who = fmt::format("instance {} (pid {})", i, instances_[static_cast<size_t>(i)]->pid());
  if (fault_.empty()) fault_ = who + ": " + why;
  const int64_t now = now_ns();
  for (auto it = sent_.begin(); it != sent_.end();) {
    if (it->second.instance != i) {
      ++it;
      continue;
    }
    if (!it->second.discard) fail_held(it->second, who + " held it when it failed: " + why, now, done);
    it = sent_.erase(it);
  }
}

void RunnerPool::check_hangs(int64_t now, std::vector<QueryDone>& done) {
  std::vector<int32_t> hung;
  for (const auto& [tag, r] : sent_)
    if (now - r.sent_ns > spec_.hang_timeout_ns && alive_[static_cast<size_t>(r.instance)] &&
        std::find(hung.begin(), hung.end(), r.instance) == hung.end())
      hung.push_back(r.instance);
  for (int32_t i : hung) {
    instances_[static_cast<size_t>(i)]->kill();
    on_death(i, fmt::format("did not answer within {:g} s; killed it", static_cast<double>(spec_.hang_timeout_ns) / 1e9),
             done);
  }
}

int64_t RunnerPool::next_deadline(int64_t until_ns) const {
  int64_t deadline = until_ns;
  if (auto wake = dispatcher_.next_wake_ns()) deadline = std::min(deadline, *wake);
  for (const auto& [tag, r] : sent_) deadline = std::min(deadline, r.sent_ns + spec_.hang_timeout_ns + 1);
  return deadline;
}

void RunnerPool::poll_instances(int64_t deadline_ns, std::vector<QueryDone>& done) {
  std::vector<pollfd> fds;
  std::vector<int32_t> who;
  for (size_t i = 0; i < instances_.size(); ++i)
    if (alive_[i]) {
      fds.push_back({instances_[i]->reply_fd(), POLLIN, 0});
      who.push_back(static_cast<int32_t>(i));
    }
  const timespec wait = timespec_of(deadline_ns - now_ns());
  if (::ppoll(fds.data(), fds.size(), &wait, nullptr) <= 0) return;
  for (size_t k = 0; k < fds.size(); ++k) {
    if (!fds[k].revents) continue;
    replies_.clear();
    const bool alive = instances_[static_cast<size_t>(who[k])]->collect(replies_);
    const int64_t now = now_ns();
    for (const auto& r : replies_) on_reply(r, now, done);
    if (!alive) on_death(who[k], instances_[static_cast<size_t>(who[k])]->death(), done);
  }
}

void RunnerPool::wait(int64_t until_ns, std::vector<QueryDone>& done) {
  for (;;) {
    int64_t now = now_ns();
    pump(now);
    check_hangs(now, done);
    if (!done.empty()) return;
    const int64_t deadline = next_deadline(until_ns);
    if (now >= deadline && now >= until_ns) return;
    poll_instances(std::max(deadline, now), done);
    pump(now_ns());  // a slot a reply freed goes to the next queued query at once
    if (!done.empty() || now_ns() >= until_ns) return;
  }
}

void RunnerPool::cancel(std::vector<QueryDone>& done) {
  for (const auto& q : dispatcher_.drain()) {
    QueryDone d;
    d.id = q.id;
    d.status = QueryStatus::abandoned;
    done.push_back(d);
  }
  for (auto& [tag, r] : sent_) {
    if (r.discard) continue;
    r.discard = true;
    for (const Assignment& c : r.calls)
      for (const auto& q : c.queries) done.push_back(held(r, c, q, QueryStatus::abandoned, 0));
  }
  // The runs after this one start with idle instances: the replies to what was sent are awaited (and dropped).
  std::vector<QueryDone> ignored;
  while (!sent_.empty() && fault_.empty()) {
    check_hangs(now_ns(), ignored);
    poll_instances(next_deadline(now_ns() + 50'000'000), ignored);
  }
}

}  // namespace rooflens::capacity
