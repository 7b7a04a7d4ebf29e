#include "capacity/generative/batcher.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <set>

#include "stats/normal.h"
#include "stats/splitmix64.h"

namespace rooflens::capacity::generative {
namespace {

// One admitted sequence.
struct Sequence {
  int64_t id = 0;
  int64_t prompt_done = 0;  // prompt tokens in its KV cache
  int64_t produced = 0;     // output tokens so far
  int64_t reserved = 0;     // KV tokens reserved (prompt + output)
  bool finished = false;    // static batching: done, still in its batch until the batch ends
  int64_t padded = 0;       // steps computed as padding since (its cache still grows by one token each)
  int64_t context(const RequestShape& s) const { return s.input_tokens + produced - 1 + padded; }
};

// Marsaglia and Tsang's gamma(shape, 1) from uniform draws (normals by the inverse CDF: one draw each, the same on
// every library); shape < 1 by Stuart's boost from shape + 1.
double gamma_draw(double shape, stats::SplitMix64& rng) {
  if (shape < 1) {
    const double u = std::max(rng.uniform(), 1e-300);
    return gamma_draw(shape + 1, rng) * std::pow(u, 1 / shape);
  }
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = stats::normal_quantile(std::clamp(rng.uniform(), 1e-15, 1 - 1e-15));
    const double v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const double v = v0 * v0 * v0, u = std::max(rng.uniform(), 1e-300);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

class Scheduler {
 public:
  Scheduler(const LoadPlan& load, const BatcherSettings& s, StepExecutor& exec, const BatcherHooks& hooks)
      : load_(load), s_(s), exec_(exec), hooks_(hooks) {
    const auto n = static_cast<int64_t>(load.shapes.size());
    out_.requests.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      out_.requests[static_cast<size_t>(i)].id = i;
      out_.requests[static_cast<size_t>(i)].shape = load.shapes[static_cast<size_t>(i)];
    }
    offsets_ = arrivals(load);
  }

  ServingRecords run() {
    out_.start_ns = exec_.clock().now_ns();
    if (hooks_.sink) hooks_.sink->begin(out_.start_ns);
    if (load_.kind == LoadKind::concurrency) {
      for (int64_t u = 0; u < std::min<int64_t>(load_.users, total()); ++u) schedule_next(out_.start_ns);
    } else {
      for (size_t i = 0; i < offsets_.size(); ++i) schedule_next(out_.start_ns + offsets_[i]);
    }
    int64_t last_end = out_.start_ns;
    while (!all_settled()) {
      if (hooks_.interrupted && hooks_.interrupted->load()) {
        out_.interrupted = true;
        break;
      }
      const auto t0 = std::chrono::steady_clock::now();
      arrive(exec_.clock().now_ns());
      if (running_.empty() && waiting_.empty()) {
        if (upcoming_.empty()) break;  // nothing left that could arrive (a concurrency load whose users are done)
        exec_.idle_until(upcoming_.front().first);
        continue;
      }
      admit(exec_.clock().now_ns());
      DecoderStep plan = next_plan();
      if (plan.rows.empty()) {  // everything waits for KV that nothing running will free: cannot happen (see admit)
        out_.fault = "internal: the scheduler formed an empty step";
        break;
      }
      out_.scheduler_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const StepResult r = exec_.run(plan);
      ++out_.steps;
      out_.max_batch_seen = std::max<int64_t>(out_.max_batch_seen, static_cast<int64_t>(plan.rows.size()));
      if (!r.error.empty()) {
        out_.fault = r.error;
        for (const auto& q : running_) fail(q.id, "step " + std::to_string(plan.index) + " failed: " + r.error);
        break;
      }
      out_.step_busy_s += static_cast<double>(r.end_ns - r.start_ns) / 1e9;
      out_.kv_copy_bytes += r.kv_copy_bytes;
      last_end = std::max(last_end, r.end_ns);
      apply(plan, r.end_ns);
    }
    out_.end_ns = std::max(last_end, exec_.clock().now_ns());
    out_.planned = total();
    settle_the_rest();
    return std::move(out_);
  }

 private:
  int64_t total() const { return static_cast<int64_t>(out_.requests.size()); }
  RequestRecord& rec(int64_t id) { return out_.requests[static_cast<size_t>(id)]; }

  bool all_settled() const { return settled_ == total(); }

  // The next request (in id order) arrives at `at_ns`.
  void schedule_next(int64_t at_ns) {
    if (next_id_ >= total()) return;
    rec(next_id_).scheduled_ns = at_ns;
    upcoming_.push_back({at_ns, next_id_++});
  }

  // The run stopped (done, a fault, Ctrl-C): requests that had arrived and did not finish are abandoned and go to the
  // sink too, so its file accounts for each; requests that had not arrived yet were never issued and are dropped.
  void settle_the_rest() {
    std::vector<RequestRecord> kept;
    for (auto& r : out_.requests) {
      if (r.status != RequestStatus::abandoned) {
        kept.push_back(std::move(r));
        continue;
      }
      if (r.id >= next_id_ || r.scheduled_ns > out_.end_ns) continue;
      if (hooks_.sink) hooks_.sink->add(r);
      kept.push_back(std::move(r));
    }
    out_.requests = std::move(kept);
  }

  void arrive(int64_t now) {
    // upcoming_ is in arrival order: server/offline/trace offsets are sorted, and a concurrency user's next request
    // arrives when its last one ended, later than any arrival before it.
    while (!upcoming_.empty() && upcoming_.front().first <= now) {
      const auto [at, id] = upcoming_.front();
      upcoming_.pop_front();
      RequestRecord& r = rec(id);
      r.scheduled_ns = at;  // (as scheduled; a live clock reaches it a little later)
      const int64_t need = r.shape.input_tokens + r.shape.output_tokens;
      if (s_.max_context > 0 && need > s_.max_context) {
        reject(id, "needs " + std::to_string(need) + " tokens of context (" + std::to_string(r.shape.input_tokens) +
                       " in + " + std::to_string(r.shape.output_tokens) + " out); the model holds " +
                       std::to_string(s_.max_context));
      } else if (s_.kv_budget_tokens > 0 && need > s_.kv_budget_tokens) {
        reject(id, "needs " + std::to_string(need) + " tokens of KV cache; the budget holds " +
                       std::to_string(s_.kv_budget_tokens) + " (raise --kv-budget)");
      } else {
        waiting_.push_back(id);
      }
    }
  }

  void admit(int64_t now) {
    if (s_.batching == Batching::static_batches && !running_.empty()) return;  // the batch runs to its end
    while (!waiting_.empty() && static_cast<int64_t>(running_.size()) < s_.max_batch) {
      RequestRecord& r = rec(waiting_.front());
      const int64_t need = r.shape.input_tokens + r.shape.output_tokens;
      if (s_.kv_budget_tokens > 0 && kv_reserved_ + need > s_.kv_budget_tokens) {
        r.waited_for_kv = true;  // first come, first served: the head waits, and so does everyone behind it
        break;
      }
      kv_reserved_ += need;
      r.admitted_ns = now;
      running_.push_back({r.id, 0, 0, need, false, 0});
      waiting_.pop_front();
    }
  }

  DecoderStep next_plan() {
    DecoderStep p;
    p.index = out_.steps;
    p.finished = std::move(just_finished_);
    just_finished_.clear();
    const bool chunked = s_.prefill == PrefillMode::chunked && s_.batching == Batching::continuous;
    auto prefilling = [](const Sequence& q, const RequestRecord& r) { return q.prompt_done < r.shape.input_tokens; };
    bool any_prefill = false;
    for (const auto& q : running_) any_prefill |= prefilling(q, rec(q.id));
    if (!chunked && any_prefill) {
      // A prefill step: the waiting prompts, as many as the token budget takes (at least one).
      int64_t budget = s_.max_batched_tokens;
      for (const auto& q : running_) {
        const RequestRecord& r = rec(q.id);
        if (!prefilling(q, r)) continue;
        const int64_t n = r.shape.input_tokens - q.prompt_done;
        if (!p.rows.empty() && n > budget) break;
        p.rows.push_back({q.id, q.prompt_done, n, true, true, false});
        budget -= n;
      }
    } else {
      int64_t budget = s_.max_batched_tokens;
      for (const auto& q : running_) {
        if (prefilling(q, rec(q.id))) continue;
        const RequestRecord& r = rec(q.id);
        p.rows.push_back({q.id, q.context(r.shape), 1, false, false, q.finished});
        --budget;
      }
      for (const auto& q : running_) {
        const RequestRecord& r = rec(q.id);
        if (!prefilling(q, r) || budget <= 0) continue;
        const int64_t n = std::min(budget, r.shape.input_tokens - q.prompt_done);
        p.rows.push_back({q.id, q.prompt_done, n, true, q.prompt_done + n == r.shape.input_tokens, false});
        budget -= n;
      }
    }
    // Membership of the decode batch against the last decode step's (a prefill step leaves the batch as it was).
    std::set<int64_t> decoding;
    for (const auto& row : p.rows)
      if (!row.prefill) decoding.insert(row.request);
    if (decoding.empty()) return p;
    for (int64_t id : decoding)
      if (!last_decoding_.count(id)) p.joined.push_back(id);
    for (int64_t id : last_decoding_)
      if (!decoding.count(id)) p.left.push_back(id);
    last_decoding_ = std::move(decoding);
    return p;
  }

  void apply(const DecoderStep& plan, int64_t end_ns) {
    int64_t finished_now = 0;
    for (const DecoderStepRow& row : plan.rows) {
      auto q = std::find_if(running_.begin(), running_.end(), [&](const Sequence& s) { return s.id == row.request; });
      if (row.padding) {
        ++q->padded;
        continue;
      }
      RequestRecord& r = rec(row.request);
      if (row.prefill) {
        q->prompt_done += row.tokens;
        if (!row.completes_prefill) continue;
        r.first_token_ns = end_ns;
      }
      ++q->produced;
      r.token_ns.push_back(end_ns);
      if (q->produced < r.shape.output_tokens) continue;
      r.end_ns = end_ns;
      r.status = RequestStatus::ok;
      ++finished_now;
      just_finished_.push_back(row.request);
      finish(row.request);
      q->finished = true;
      if (load_.kind == LoadKind::concurrency) schedule_next(end_ns);
    }
    // A finished sequence leaves at once (continuous); a static batch leaves whole, when its last sequence is done.
    const bool batch_done = std::all_of(running_.begin(), running_.end(), [](const Sequence& q) { return q.finished; });
    if (s_.batching == Batching::continuous || batch_done) {
      for (const auto& q : running_)
        if (q.finished) kv_reserved_ -= q.reserved;
      running_.erase(std::remove_if(running_.begin(), running_.end(), [](const Sequence& q) { return q.finished; }),
                     running_.end());
    }
    if (finished_now && hooks_.progress) hooks_.progress(settled_, total());
  }

  void finish(int64_t id) {
    ++settled_;
    if (hooks_.sink) hooks_.sink->add(rec(id));
  }

  void reject(int64_t id, const std::string& why) {
    RequestRecord& r = rec(id);
    r.status = RequestStatus::rejected;
    r.error = why;
    finish(id);
    if (load_.kind == LoadKind::concurrency) schedule_next(r.scheduled_ns);
  }

  void fail(int64_t id, const std::string& why) {
    RequestRecord& r = rec(id);
    r.status = RequestStatus::failed;
    r.error = why;
    finish(id);
  }

  const LoadPlan& load_;
  const BatcherSettings& s_;
  StepExecutor& exec_;
  const BatcherHooks& hooks_;
  ServingRecords out_;
  std::vector<int64_t> offsets_;
  std::deque<std::pair<int64_t, int64_t>> upcoming_;  // (arrival ns, request id), in arrival order
  std::deque<int64_t> waiting_;                       // arrived, not admitted
  std::vector<Sequence> running_;                     // admitted, in admission order
  std::set<int64_t> last_decoding_;
  std::vector<int64_t> just_finished_;                // finished at the last step: the next one tells the executor
  int64_t next_id_ = 0, settled_ = 0, kv_reserved_ = 0;
};

}  // namespace

std::string check_settings(const BatcherSettings& s) {
  if (s.max_batch < 1) return "--max-batch " + std::to_string(s.max_batch) + ": give at least 1 sequence";
  if (s.max_batched_tokens < s.max_batch)
    return "--max-batched-tokens " + std::to_string(s.max_batched_tokens) + " is below --max-batch " +
           std::to_string(s.max_batch) + ": a step must carry one token of every running sequence";
  if (s.kv_budget_tokens < 0) return "--kv-budget: must not be negative";
  return "";
}

std::vector<int64_t> arrivals(const LoadPlan& load) {
  const auto n = static_cast<int64_t>(load.shapes.size());
  std::vector<int64_t> out;
  switch (load.kind) {
    case LoadKind::concurrency: return out;
    case LoadKind::offline: return std::vector<int64_t>(static_cast<size_t>(n), 0);
    case LoadKind::trace: {
      out = load.trace_ns;
      out.resize(static_cast<size_t>(n), out.empty() ? 0 : out.back());
      return out;
    }
    case LoadKind::server: break;
  }
  stats::SplitMix64 rng(load.seed);
  const double k = load.burstiness > 0 ? load.burstiness : 1;
  double at_s = 0;
  for (int64_t i = 0; i < n; ++i) {
    at_s += k == 1 ? -std::log(1 - rng.uniform()) / load.rate : gamma_draw(k, rng) / (load.rate * k);
    out.push_back(static_cast<int64_t>(std::llround(at_s * 1e9)));
  }
  return out;
}

ServingRecords serve(const LoadPlan& load, const BatcherSettings& settings, StepExecutor& executor,
                     const BatcherHooks& hooks) {
  return Scheduler(load, settings, executor, hooks).run();
}

}  // namespace rooflens::capacity::generative
