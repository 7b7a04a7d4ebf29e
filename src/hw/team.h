#pragma once
// A team of worker threads, each pinned to its own core, that run one job at a time in lock step.
// Timing is taken *inside* the job (see Team::timed): every thread starts its work right after a common spin
// barrier and stamps its own start and end; one repetition lasts from the first start to the last end, so
// thread wake-up latency never enters a measurement, while a thread that starts late or is descheduled
// mid-work makes its repetition slow, and best-of-K drops it.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rooflens::hw {

// CPUs to pin to, one per physical core first (SMT siblings last), restricted to this process's affinity.
std::vector<int> pinning_order();

// One thread's work in one repetition, in seconds on the (system-wide) steady clock.
struct ThreadSpan {
  double start = 0, end = 0;
};

// Duration of one team repetition: from the earliest start to the latest end — the slowest thread's time
// measured from the common start. Any thread's late start or stall counts against the repetition.
double team_rep_seconds(const std::vector<ThreadSpan>& spans);
// Best (smallest) team_rep_seconds over repetitions; 0 for none.
double best_rep_seconds(const std::vector<std::vector<ThreadSpan>>& reps);

class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  void wait();

 private:
  const int n_;
  std::atomic<int> count_{0};
  std::atomic<uint64_t> generation_{0};
};

// 64-byte aligned, zero-filled by the thread that owns it (first touch puts the pages on its NUMA node).
struct AlignedBuffer {
  double* data = nullptr;
  size_t bytes = 0;
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  AlignedBuffer(AlignedBuffer&&) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&&) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();
};

class Team {
 public:
  // Throws UserError when a thread cannot be pinned (e.g. more threads than allowed CPUs).
  explicit Team(int threads);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  // Runs job(tid) on every thread; rethrows the first exception a thread raised.
  void run(const std::function<void(int tid)>& job);
  // Runs work(tid) on all threads at once, each repetition released by a spin barrier: `reps` repetitions,
  // or, with budget_seconds > 0, at least `reps` and then more (up to max_reps) until budget_seconds of wall
  // time have passed — so a thread stalled at the barriers by a busy machine costs repetitions, not time.
  // Returns the best (smallest) team_rep_seconds over the repetitions.
  double timed(int reps, const std::function<void(int tid)>& work, double budget_seconds = 0, int max_reps = 1000);
  // The same, returning every repetition's per-thread spans ([rep][tid]).
  std::vector<std::vector<ThreadSpan>> timed_spans(int reps, const std::function<void(int tid)>& work,
                                                   double budget_seconds = 0, int max_reps = 1000);
  // Each thread's private buffer, grown (never shrunk) by its own thread.
  void reserve(size_t bytes_per_thread);
  AlignedBuffer& buffer(int tid) { return buffers_[tid]; }

 private:
  void worker(int tid, int cpu);
  void shutdown();
  std::vector<std::thread> workers_;
  std::vector<AlignedBuffer> buffers_;
  std::mutex mu_;
  std::condition_variable cv_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t job_generation_ = 0;
  int done_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<int> pin_failures_;
};

}  // namespace rooflens::hw
