#include "capacity/sut/dispatcher.h"

#include <algorithm>

namespace rooflens::capacity {

Dispatcher::Dispatcher(int32_t instances, BatchingRules rules)
    : rules_(rules), in_flight_(static_cast<size_t>(instances), 0), enabled_(static_cast<size_t>(instances), true) {}

void Dispatcher::enqueue(const PendingQuery& q) {
  queue_.push_back(q);
  queued_samples_ += q.samples;
}

std::optional<int32_t> Dispatcher::free_instance() const {
  std::optional<int32_t> best;
  const size_t n = in_flight_.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (next_ + k) % n;
    if (!enabled_[i] || in_flight_[i] >= rules_.concurrency * rules_.calls_per_message) continue;
    if (!best || in_flight_[i] < in_flight_[static_cast<size_t>(*best)]) best = static_cast<int32_t>(i);
  }
  return best;
}

bool Dispatcher::batch_due(int64_t now_ns) const {
  if (queue_.empty()) return false;
  if (rules_.max_batch <= 1 || queued_samples_ >= rules_.max_batch) return true;
  return now_ns - queue_.front().enqueued_ns >= rules_.batch_timeout_ns;
}

std::vector<Assignment> Dispatcher::assign(int64_t now_ns) {
  std::vector<Assignment> out;
  for (;;) {
    if (!batch_due(now_ns)) break;
    const std::optional<int32_t> instance = free_instance();
    if (!instance) break;
    Assignment a;
    a.instance = *instance;
    const int64_t cap = rules_.max_batch <= 1 ? 1 : rules_.max_batch;
    do {
      a.samples += queue_.front().samples;
      queued_samples_ -= queue_.front().samples;
      a.queries.push_back(queue_.front());
      queue_.pop_front();
    } while (!queue_.empty() && rules_.max_batch > 1 && a.samples + queue_.front().samples <= cap);
    ++in_flight_[static_cast<size_t>(a.instance)];
    next_ = (static_cast<size_t>(a.instance) + 1) % in_flight_.size();
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<OutgoingMessage> Dispatcher::messages(int64_t now_ns) {
  std::vector<std::vector<Assignment>> per_instance(in_flight_.size());
  for (Assignment& a : assign(now_ns)) per_instance[static_cast<size_t>(a.instance)].push_back(std::move(a));
  const auto chunk = static_cast<size_t>(rules_.calls_per_message);
  std::vector<OutgoingMessage> out;
  for (size_t i = 0; i < per_instance.size(); ++i)
    for (size_t at = 0; at < per_instance[i].size(); at += chunk) {
      OutgoingMessage r;
      r.instance = static_cast<int32_t>(i);
      const size_t end = std::min(at + chunk, per_instance[i].size());
      for (size_t k = at; k < end; ++k) r.calls.push_back(std::move(per_instance[i][k]));
      out.push_back(std::move(r));
    }
  return out;
}

void Dispatcher::finished(int32_t instance) {
  auto& n = in_flight_[static_cast<size_t>(instance)];
  if (n > 0) --n;
}

void Dispatcher::disable(int32_t instance) { enabled_[static_cast<size_t>(instance)] = false; }

std::optional<int64_t> Dispatcher::next_wake_ns() const {
  if (queue_.empty() || rules_.max_batch <= 1 || queued_samples_ >= rules_.max_batch) return std::nullopt;
  if (!free_instance()) return std::nullopt;  // a completion comes first and wakes the caller anyway
  return queue_.front().enqueued_ns + rules_.batch_timeout_ns;
}

std::vector<PendingQuery> Dispatcher::drain() {
  std::vector<PendingQuery> out(queue_.begin(), queue_.end());
  queue_.clear();
  queued_samples_ = 0;
  return out;
}

}  // namespace rooflens::capacity
