#include "hw/probe.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace rooflens::hw {
namespace {

constexpr size_t kStagger = 192;  // bytes between arrays, so a[i] and b[i] never share a 4 KiB page offset

// Best-of-K timing of work whose size (iterations, blocks) is scaled so one repetition lasts about `target`.
// The size is found by growing it until a best-of-3 lasts ≥ 0.2 ms and extrapolating; because a thread
// descheduled during that probe makes the work look slower than it is (it happened: 5 ms for 1 iteration, so
// the "20 ms" repetition became 4 iterations and the figure 0.005 GFLOP/s), the final best is checked against
// the target and the size extrapolated again from it when it fell short. Repetitions: at least `min_reps`,
// more until `budget` seconds have passed (Team::timed). Repetitions are short on purpose: on a shared 2-vCPU
// VM a 0.5 ms window with every thread on its core comes often, a 20 ms one rarely (measured here under
// load, 2 threads: best of 0.5 ms repetitions 287 GFLOP/s, of 10 ms ones 155).
struct Timing { uint64_t units = 1; double seconds = 0; };

constexpr uint64_t kMaxUnits = uint64_t{1} << 40;

Timing time_best(double target, int min_reps, double budget, const Probe::Timed& timed) {
  Timing r;
  double t = timed(r.units, 3, 0, false);
  auto grow = [&] {  // to a best-of-3 long enough (0.2 ms) to extrapolate from
    while (t < 2e-4 && r.units < kMaxUnits) {
      r.units = std::min(r.units * 16, kMaxUnits);
      t = timed(r.units, 3, 0, false);
    }
  };
  grow();
  for (int round = 0; round < 3; ++round) {
    r.units = std::clamp<uint64_t>(static_cast<uint64_t>(static_cast<double>(r.units) * target / t), 1, kMaxUnits);
    t = timed(r.units, min_reps, budget, true);
    if (t >= 0.5 * target || r.units == kMaxUnits) break;
    grow();  // the sizing was fooled: probe again from the size that ran fast
  }
  r.seconds = t;
  return r;
}

// Each thread's arrays inside its private buffer, staggered so a[i], b[i], c[i] never share a page offset;
// `first` elements into each array, `count` elements.
BwArgs bw_args(Team& team, const BwKernel& k, int tid, size_t n, size_t first, size_t count, uint64_t passes) {
  char* base = reinterpret_cast<char*>(team.buffer(tid).data);
  size_t stride = n * sizeof(double) + kStagger;
  BwArgs a;
  a.a = reinterpret_cast<double*>(base) + first;
  a.b = reinterpret_cast<const double*>(base + (k.arrays >= 2 ? stride : 0)) + first;
  a.c = reinterpret_cast<const double*>(base + (k.arrays >= 3 ? 2 * stride : 0)) + first;
  a.n = count;
  a.passes = passes;
  return a;
}

}  // namespace

Probe::Probe(Timed timed, Amount amount) : timed_(std::move(timed)), amount_(std::move(amount)) {}

double Probe::round(double seconds, int min_reps, double budget) {
  double rate;
  if (units_ == 0) {
    Timing first = time_best(seconds, min_reps, budget, timed_);
    units_ = first.units;
    rate = amount_(units_) / first.seconds;
  } else {
    rate = amount_(units_) / timed_(units_, min_reps, budget, true);
  }
  best_ = std::max(best_, rate);
  return rate;
}

Probe Probe::compute(Team& team, const ComputeKernel& k) {
  auto sink = std::make_shared<std::vector<double>>(static_cast<size_t>(team.size()));
  Timed timed = [&team, &k, sink](uint64_t iters, int reps, double budget, bool) {
    return team.timed(reps, [&](int tid) { (*sink)[static_cast<size_t>(tid)] = k.run(iters); }, budget);
  };
  double per_unit = static_cast<double>(team.size()) * k.ops_per_iter / 1e9;
  return Probe(std::move(timed), [per_unit](uint64_t iters) { return per_unit * static_cast<double>(iters); });
}

size_t bandwidth_elements(uint64_t working_set, int threads, int arrays) {
  uint64_t per_array = working_set / static_cast<uint64_t>(threads) / static_cast<uint64_t>(arrays) / 8;
  return per_array / kBwElementBlock * kBwElementBlock;
}

uint64_t bandwidth_buffer_bytes(uint64_t working_set, int threads) {
  return working_set / static_cast<uint64_t>(threads) + 4 * kStagger + 4096;
}

Probe Probe::bandwidth(Team& team, const BwKernel& k, size_t n, uint64_t settle_bytes) {
  // Work is counted in blocks of kBwElementBlock elements. At least a whole array's worth: whole passes
  // (rounded). Less (a DRAM-sized array takes 15-30 ms per pass here): a window of that many blocks that
  // moves on through the array from one repetition to the next, wrapping around — the access stream over
  // time is the same cyclic sweep as whole passes (so an array larger than the caches still comes from
  // memory), only timed in short windows.
  const uint64_t blocks = std::max<uint64_t>(1, n / kBwElementBlock);
  n = blocks * kBwElementBlock;
  auto done_blocks = [blocks](uint64_t units) {
    return units < blocks ? units : std::max<uint64_t>(1, (units + blocks / 2) / blocks) * blocks;
  };
  struct State {
    std::vector<double> sink;
    std::vector<uint64_t> next;  // per thread: block where its next window starts
  };
  auto st = std::make_shared<State>();
  st->sink.resize(static_cast<size_t>(team.size()));
  st->next.resize(static_cast<size_t>(team.size()));
  // One thread's window of `units` blocks (at most a whole array) from where its last one ended, wrapping.
  auto window = [&team, &k, n, blocks, st](int tid, uint64_t units) {
    auto i = static_cast<size_t>(tid);
    uint64_t& at = st->next[i];
    uint64_t head = std::min(units, blocks - at);
    st->sink[i] = k.fn(bw_args(team, k, tid, n, at * kBwElementBlock, head * kBwElementBlock, 1));
    if (units > head) st->sink[i] += k.fn(bw_args(team, k, tid, n, 0, (units - head) * kBwElementBlock, 1));
    at = (at + units) % blocks;
  };
  // settle_bytes counts all threads and arrays; one block per thread moves this many of them.
  uint64_t block_bytes = static_cast<uint64_t>(team.size()) * static_cast<uint64_t>(k.arrays) * kBwElementBlock * 8;
  uint64_t settle_blocks = settle_bytes ? std::min(blocks, (settle_bytes + block_bytes - 1) / block_bytes) : blocks;
  Timed timed = [&team, &k, n, blocks, settle_blocks, done_blocks, st, window](uint64_t units, int reps,
                                                                                double budget, bool settle) {
    if (units >= blocks)
      return team.timed(reps, [&](int tid) {
        st->sink[static_cast<size_t>(tid)] = k.fn(bw_args(team, k, tid, n, 0, n, done_blocks(units) / blocks));
      }, budget);
    // Windows: caches must hold what the cyclic sweep leaves in them — for triad/copy/write, lines this
    // kernel dirtied, whose write-back each window pays for — not what the previous figure left (clean
    // lines cost nothing to evict and would flatter the first windows). An untimed stretch of the sweep
    // (a whole pass, or settle_bytes when that is less), ending where the next window starts, brings them there.
    if (settle) team.run([&](int tid) { window(tid, settle_blocks); });
    return team.timed(reps, [&](int tid) { window(tid, units); }, budget);
  };
  double per_block = static_cast<double>(team.size()) * k.words * 8.0 * kBwElementBlock / 1e9;
  return Probe(std::move(timed), [per_block, done_blocks](uint64_t units) {
    return per_block * static_cast<double>(done_blocks(units));
  });
}

}  // namespace rooflens::hw
