#pragma once
// A team of worker threads, each pinned to its own core, that run one job at a time in lock step.
// Timing is taken *inside* the job between two spin barriers (see Team::timed), so thread wake-up latency
// never enters a measurement.
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
  // Runs work(tid) `reps` times on all threads at once; returns the best (smallest) wall time in seconds,
  // measured by thread 0 from a barrier before to a barrier after the work.
  double timed(int reps, const std::function<void(int tid)>& work);
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
