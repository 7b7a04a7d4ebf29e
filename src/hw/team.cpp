// Pinned worker team. Pinning uses pthread_setaffinity_np so each thread owns one core for the whole
// measurement; the OS may not migrate it mid-run (which would refill caches and skew per-level bandwidth).
#include "hw/team.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include <hwloc.h>

#include "core/errors.h"

namespace rooflens::hw {

std::vector<int> pinning_order() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof(allowed), &allowed);
  std::vector<int> first, rest;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int c = 0; c < cores; ++c) {
      hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, c);
      bool took_one = false;
      for (unsigned p = 0; p < core->arity || (core->arity == 0 && p == 0); ++p) {
        hwloc_obj_t pu = core->arity ? core->children[p] : core;
        if (pu->type != HWLOC_OBJ_PU) continue;
        int os = static_cast<int>(pu->os_index);
        if (!CPU_ISSET(os, &allowed)) continue;
        (took_one ? rest : first).push_back(os);
        took_one = true;
      }
    }
    hwloc_topology_destroy(topo);
  }
  if (first.empty())  // no topology: fall back to the affinity mask in CPU order
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &allowed)) first.push_back(i);
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

void SpinBarrier::wait() {
  uint64_t gen = generation_.load(std::memory_order_acquire);
  if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
    count_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  // No PAUSE in this loop: under KVM a vCPU that executes PAUSE in a loop for a few thousand cycles takes a
  // pause-loop exit and the host may run something else on that core for a whole host time slice. Measured
  // here with PAUSE: a thread released from this barrier starting its work 3-4 ms after the other one, in
  // every repetition of some rounds (2-thread DRAM triad then 1 GB/s instead of 13). The loop is only ever
  // as long as the slowest thread's arrival.
  while (generation_.load(std::memory_order_acquire) == gen) {
  }
}

AlignedBuffer::AlignedBuffer(size_t n) {
  // Round to whole pages: aligned_alloc needs a multiple of the alignment, and 4 KiB alignment keeps
  // every working set starting at the same cache-set offset.
  bytes = (n + 4095) / 4096 * 4096;
  data = static_cast<double*>(std::aligned_alloc(4096, bytes));
  if (!data) throw std::bad_alloc();
  std::memset(data, 0, bytes);
}
AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept : data(o.data), bytes(o.bytes) { o.data = nullptr, o.bytes = 0; }
AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  std::swap(data, o.data);
  std::swap(bytes, o.bytes);
  return *this;
}
AlignedBuffer::~AlignedBuffer() { std::free(data); }

Team::Team(int threads) {
  std::vector<int> cpus = pinning_order();
  if (threads < 1 || threads > static_cast<int>(cpus.size()))
    throw UserError("cannot run " + std::to_string(threads) + " pinned threads: this process may use " +
                    std::to_string(cpus.size()) + " CPUs");
  buffers_.resize(threads);
  for (int t = 0; t < threads; ++t) workers_.emplace_back([this, t, cpu = cpus[t]] { worker(t, cpu); });
  run([](int) {});  // wait until every thread is pinned
  if (!pin_failures_.empty()) {
    int cpu = pin_failures_.front();
    shutdown();  // a constructor that throws gets no destructor: join the threads here
    throw UserError("cannot pin a thread to CPU " + std::to_string(cpu));
  }
}

Team::~Team() { shutdown(); }

void Team::shutdown() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_)
    if (w.joinable()) w.join();
}

void Team::worker(int tid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
    std::lock_guard lk(mu_);
    pin_failures_.push_back(cpu);
  }
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return stop_ || job_generation_ != seen; });
      if (stop_) return;
      seen = job_generation_;
      job = job_;
    }
    std::exception_ptr err;
    try {
      (*job)(tid);
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard lk(mu_);
      if (err && !error_) error_ = err;
      ++done_;
    }
    cv_.notify_all();
  }
}

void Team::run(const std::function<void(int)>& job) {
  std::unique_lock lk(mu_);
  job_ = &job;
  done_ = 0;
  error_ = nullptr;
  ++job_generation_;
  cv_.notify_all();
  cv_.wait(lk, [&] { return done_ == size(); });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

double team_rep_seconds(const std::vector<ThreadSpan>& spans) {
  if (spans.empty()) return 0;
  double first = spans[0].start, last = spans[0].end;
  for (const ThreadSpan& s : spans) first = std::min(first, s.start), last = std::max(last, s.end);
  return last - first;
}

double best_rep_seconds(const std::vector<std::vector<ThreadSpan>>& reps) {
  double best = 0;
  for (size_t r = 0; r < reps.size(); ++r) {
    double t = team_rep_seconds(reps[r]);
    if (r == 0 || t < best) best = t;
  }
  return best;
}

namespace {
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

std::vector<std::vector<ThreadSpan>> Team::timed_spans(int reps, const std::function<void(int)>& work,
                                                       double budget_seconds, int max_reps) {
  reps = std::max(reps, 1);
  if (budget_seconds <= 0) max_reps = reps;
  max_reps = std::max(max_reps, reps);
  SpinBarrier barrier(size());
  std::vector<std::vector<ThreadSpan>> spans;
  spans.reserve(static_cast<size_t>(max_reps));
  // A thread that throws must still reach the barriers, or the others would spin forever.
  std::atomic<bool> failed{false};
  // Thread 0 decides, between the two barriers of a repetition, whether another one follows; the others
  // read the decision after the second barrier, so every thread runs the same number of repetitions.
  std::atomic<bool> more{true};
  double began = now_seconds();
  run([&](int tid) {
    std::exception_ptr err;
    for (int r = 0; more.load(std::memory_order_acquire); ++r) {
      if (tid == 0) spans.emplace_back(static_cast<size_t>(size()));
      barrier.wait();  // common release: every thread starts this repetition together
      double t0 = now_seconds();
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          work(tid);
        } catch (...) {
          failed = true;
          if (!err) err = std::current_exception();
        }
      }
      double t1 = now_seconds();
      spans[static_cast<size_t>(r)][static_cast<size_t>(tid)] = {t0, t1};
      if (tid == 0)
        more.store(!failed.load() && (r + 1 < reps || (r + 1 < max_reps && t1 - began < budget_seconds)),
                   std::memory_order_release);
      barrier.wait();  // nobody starts the next repetition while another thread still works on this one
    }
    if (err) std::rethrow_exception(err);
  });
  return spans;
}

double Team::timed(int reps, const std::function<void(int)>& work, double budget_seconds,
                   int max_reps) {
  return best_rep_seconds(timed_spans(reps, work, budget_seconds, max_reps));
}

void Team::reserve(size_t bytes_per_thread) {
  if (buffers_[0].bytes >= bytes_per_thread) return;
  run([&](int tid) {
    buffers_[tid] = AlignedBuffer();  // free first so two big buffers never coexist
    buffers_[tid] = AlignedBuffer(bytes_per_thread);
  });
}

}  // namespace rooflens::hw
