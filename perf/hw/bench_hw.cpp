// `make bench`, part 2: `rooflens hw` next to likwid-bench on the same machine, in the same run.
//   1. wall time of `rooflens hw --quick` (target ≤ 5 s) and of the full `rooflens hw` (target ≤ 60 s),
//      both with --refresh into a private cache directory so nothing is reused;
//   2. rooflens' kernels against likwid-bench kernels doing the same work at the same working set:
//        fp32_fma_avx512 ↔ peakflops_sp_avx512_fma   fp32_fma_avx2 ↔ peakflops_sp_avx_fma
//        read  @ every level ↔ load_avx512           triad @ every level ↔ stream_avx512
//      at every thread count the full run measured, at every level its sweep found (DRAM included; a thread count
//      without a DRAM level is reported as such); ratio = rooflens / likwid (target ≥ 0.97).
// Point by point and interleaved: for each row, ROOFLENS_BENCH_ROUNDS rounds (default 5) alternate one
// likwid-bench run and one round of the same rooflens kernel in this process (hw::Probe, the code `rooflens hw`
// measures with), who goes first alternating; each side's figure is its best round. On a shared VM throughput
// comes and goes in episodes of seconds, so comparing a figure measured minutes earlier (the full run's) with
// likwid's now says more about the episode than about the kernels; the full run's figure is shown as well.
// likwid runs get `-i` iterations sized to ~20 ms (re-sized from its own reported time every round; at least
// 10, likwid's own floor), so both sides are best-of short windows — a 1 s likwid run on a shared 2-vCPU VM
// is time-shared with whatever else runs (seen: each of likwid's 2 threads getting half a CPU, its 2-thread
// figure then no higher than its 1-thread one). Each likwid-bench call costs ~1 s of start-up regardless.
// "paired" is the median over rounds of rooflens' round / likwid's run of the same round: back-to-back figures
// share the machine's state (this VM's throughput changes in episodes of seconds — L1 loads at ~200 GB/s for
// a few seconds, then ~330), so it separates "the kernel is slower" from "the two bests fell in different
// episodes". The "others" column is the CPU share other processes used while the row was measured (from /proc/stat,
// minus this process and its children): where it is high, the 2-thread figures are a contest for CPUs.
// ROOFLENS_BENCH_VERBOSE=1 prints every round's two figures.
// Like with like — counted the way likwid counts (`likwid-bench -l TEST`, printed by this bench):
//   * peakflops_sp_avx512_fma / peakflops_sp_avx_fma (Debian's likwid 5.2): one L1 load and 15 FMAs per
//     16 / 8 floats, "Flops per element: 30" = 2 FLOP per FMA lane; rooflens: 12 register-only FMA chains,
//     also 2 FLOP per FMA lane (1 MAC = 2 FLOP).
//   * load_avx512: "Bytes per element: 8", loads only; rooflens read: loads only, 1 word (8 bytes) per element.
//   * stream_avx512: "Bytes per element: 24" (16 loaded + 8 stored; write-allocate not counted), ordinary
//     (temporal) stores — stream_mem_avx512 would be the non-temporal one; rooflens triad: the same 3 words,
//     ordinary stores.
//   * likwid's -w size is the total over all arrays and threads, as rooflens' working_set_bytes is; likwid's
//     kB is 1000 bytes, and it rounds each thread's arrays down to whole loop iterations (its "Size (Byte)" is
//     printed next to ours).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/report_hardware.h"
#include "hw/bandwidth_kernels.h"
#include "hw/compute_kernels.h"
#include "hw/cpu_features.h"
#include "hw/measure.h"
#include "hw/team.h"

namespace fs = std::filesystem;
using rooflens::HardwareInfo;
namespace hw = rooflens::hw;

namespace {

struct Run { int rc = -1; double seconds = 0; std::string out; };

Run shell(const std::string& cmd) {
  Run r;
  auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// likwid-bench prints "MFlops/s:\t\t78227.09", "MByte/s:\t\t10430.28", "Time:\t\t8.88e-01 sec", ...
double likwid_field(const std::string& out, const std::string& label) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(label + ":", 0) == 0) return std::strtod(line.c_str() + label.size() + 1, nullptr);
  return -1;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string fmt(double v, int decimals = 1) {
  if (v <= 0) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string size_str(double bytes) {
  char b[32];
  if (bytes >= 1024.0 * 1024) std::snprintf(b, sizeof b, "%.1f MiB", bytes / 1024 / 1024);
  else std::snprintf(b, sizeof b, "%.1f KiB", bytes / 1024);
  return b;
}

// One likwid-bench test at one size and thread count, run in short windows: `-i` iterations per thread sized
// to about kLikwidWindow seconds (at least kLikwidMinIters), re-sized from each run's own "Time".
constexpr double kLikwidWindow = 0.02;
constexpr uint64_t kLikwidMinIters = 10;
bool g_verbose = false;

struct Likwid {
  std::string test, label;  // label: "MFlops/s" or "MByte/s"
  uint64_t kb = 0;          // -w size in likwid's kB (1000 bytes)
  int threads = 1;
  uint64_t iters = 0;       // per thread; 0 until estimated
  double best = -1;         // G units (GFLOP/s, GB/s)
  double size_bytes = -1;   // likwid's "Size (Byte)" after its rounding
  std::string error = {};

  double run() {
    Run r = shell("likwid-bench -t " + test + " -w S0:" + std::to_string(kb) + "kB:" + std::to_string(threads) +
                  " -i " + std::to_string(iters));
    double v = likwid_field(r.out, label), t = likwid_field(r.out, "Time");
    if (r.rc != 0 || v <= 0 || t <= 0) {
      if (error.empty()) error = r.out.substr(0, r.out.find('\n'));
      return -1;
    }
    best = std::max(best, v / 1000.0);
    size_bytes = likwid_field(r.out, "Size (Byte)");
    if (g_verbose) std::printf("    likwid-bench %s %llu kB x%d -i %llu: %.1f in %.3f s\n", test.c_str(),
                               static_cast<unsigned long long>(kb), threads, static_cast<unsigned long long>(iters),
                               v / 1000.0, t);
    iters = std::max<uint64_t>(kLikwidMinIters, static_cast<uint64_t>(static_cast<double>(iters) * kLikwidWindow / t));
    return v / 1000.0;
  }
};

struct Row {
  std::string what, likwid_test;
  int threads = 1;
  double report = -1;        // the full `rooflens hw` run's figure
  double ours = -1;          // interleaved best
  double theirs = -1;
  double ws_ours = -1, ws_theirs = -1;  // bandwidth rows: bytes
  double others = -1;        // % of all CPUs used by other processes while the row was measured
  double paired = -1;        // median over rounds of (rooflens round / likwid run of the same round)
};

// CPU time used on the whole machine (busy + steal, /proc/stat) and by this process and its waited-for
// children (getrusage), in seconds.
struct CpuSample { double wall = 0, machine = 0, own = 0; };

CpuSample cpu_sample() {
  CpuSample s;
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::ifstream f("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  f >> cpu >> user >> nice >> sys >> idle >> iowait >> irq >> softirq >> steal;
  s.machine = (user + nice + sys + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    s.own += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
             static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  }
  return s;
}

double others_percent(const CpuSample& a, const CpuSample& b) {
  double cpus = static_cast<double>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  double other = (b.machine - a.machine) - (b.own - a.own);
  return std::max(0.0, 100.0 * other / ((b.wall - a.wall) * cpus));
}

}  // namespace

int main() {
  fs::path tmp = fs::temp_directory_path() / "rooflens-bench-hw";
  fs::create_directories(tmp);
  std::string env = "XDG_CACHE_HOME=" + tmp.string() + " ";
  std::string bin = ROOFLENS_BINARY;
  int rounds = 5;
  if (const char* r = std::getenv("ROOFLENS_BENCH_ROUNDS")) rounds = std::max(1, std::atoi(r));
  if (const char* v = std::getenv("ROOFLENS_BENCH_VERBOSE")) g_verbose = *v && *v != '0';

  Run quick = shell(env + bin + " hw --quick --refresh -o " + (tmp / "quick.json").string());
  Run full = shell(env + bin + " hw --refresh -o " + (tmp / "full.json").string());
  if (quick.rc != 0 || full.rc != 0) {
    std::fprintf(stderr, "bench_hw: rooflens hw failed:\n%s%s", quick.out.c_str(), full.out.c_str());
    return 1;
  }
  std::printf("rooflens hw --quick: %.2f s (target <= 5 s) %s\n", quick.seconds, quick.seconds <= 5 ? "ok" : "MISSED");
  std::printf("rooflens hw (full):  %.2f s (target <= 60 s) %s\n\n", full.seconds, full.seconds <= 60 ? "ok" : "MISSED");
  HardwareInfo report = rooflens::hardware_from_json(slurp((tmp / "full.json").string()));

  for (const std::string& w : report.warnings) std::printf("hw report warning: %s\n", w.c_str());
  bool have_likwid = shell("command -v likwid-bench").rc == 0;
  if (!have_likwid) std::printf("likwid-bench not found (make deps installs Debian's likwid): ours only\n");
  std::vector<int> thread_counts;  // every thread count the full run measured
  for (const auto& c : report.compute) thread_counts.push_back(static_cast<int>(c.threads));
  for (const auto& l : report.levels) thread_counts.push_back(static_cast<int>(l.threads));
  std::sort(thread_counts.begin(), thread_counts.end());
  thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()), thread_counts.end());
  std::vector<std::string> missing_dram;

  hw::FeatureMask mask = hw::detect_features();
  const hw::BwKernelSet& bw = hw::select_bandwidth(mask);
  auto bw_kernel = [&](const std::string& name) -> const hw::BwKernel* {
    for (const auto& k : bw.kernels)
      if (k.name == name) return &k;
    return nullptr;
  };
  std::vector<hw::ComputeKernel> compute = hw::select_compute(hw::compute_kernels(), mask);
  auto compute_kernel = [&](const std::string& name) -> const hw::ComputeKernel* {
    for (const auto& k : compute)
      if (k.name == name) return &k;
    return nullptr;
  };

  if (have_likwid) {
    std::printf("likwid-bench's counting (likwid-bench -l):\n");
    for (const char* test : {"peakflops_sp_avx512_fma", "peakflops_sp_avx_fma", "load_avx512", "stream_avx512"}) {
      Run l = shell(std::string("likwid-bench -l ") + test);
      std::printf("  %-24s flops/element %g, bytes/element %g (loaded %g, stored %g)\n", test,
                  likwid_field(l.out, "Flops per element"), likwid_field(l.out, "Bytes per element"),
                  std::max(0.0, likwid_field(l.out, "Load bytes per element")),
                  std::max(0.0, likwid_field(l.out, "Store bytes per element")));
    }
    std::printf("rooflens: 2 FLOP per FMA lane; read 8 bytes/element (loads only); triad 24 bytes/element (no "
                "write-allocate)\n\n");
  }

  std::vector<Row> rows;
  for (int t : thread_counts) {
    std::unique_ptr<hw::Team> team;
    try {
      team = std::make_unique<hw::Team>(t);
    } catch (const std::exception& e) {
      std::printf("x%d: %s\n", t, e.what());
      continue;
    }
    std::printf("measuring x%d (%d interleaved rounds per row)...\n", t, rounds);
    std::fflush(stdout);
    // A row: one rooflens probe and one likwid test, `rounds` rounds alternating who goes first.
    auto compare = [&](Row& row, hw::Probe& probe, Likwid& lw, double secs) {
      CpuSample before = cpu_sample();
      std::vector<double> ratios;
      for (int r = 0; r < rounds; ++r) {
        bool likwid_first = r % 2 == 0;
        double theirs = -1;
        if (likwid_first && have_likwid) theirs = lw.run();
        double ours = probe.round(secs, 3, 0.05);
        if (g_verbose) std::printf("    rooflens %s x%d: %.1f\n", row.what.c_str(), t, ours);
        if (!likwid_first && have_likwid) theirs = lw.run();
        if (theirs > 0 && ours > 0) ratios.push_back(ours / theirs);
      }
      row.others = others_percent(before, cpu_sample());
      if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        size_t h = ratios.size() / 2;
        row.paired = ratios.size() % 2 ? ratios[h] : (ratios[h - 1] + ratios[h]) / 2;
      }
      row.ours = probe.best();
      row.theirs = lw.best;
      row.ws_theirs = lw.size_bytes;
      if (!lw.error.empty()) std::printf("  likwid-bench %s: %s\n", lw.test.c_str(), lw.error.c_str());
    };
    for (auto [ours, theirs] : {std::pair{"fp32_fma_avx512", "peakflops_sp_avx512_fma"},
                                std::pair{"fp32_fma_avx2", "peakflops_sp_avx_fma"}}) {
      Row row{std::string(ours) + " GFLOP/s", theirs, t};
      for (const auto& c : report.compute)
        if (c.name == ours && c.threads == t) row.report = c.gflops;
      const hw::ComputeKernel* k = compute_kernel(ours);
      if (k) {
        hw::Probe probe = hw::Probe::compute(*team, *k);
        // likwid: 16 kB per thread (its load stays in L1); ~30 FLOP per 4-byte element per iteration.
        double est = row.report > 0 ? row.report * 1e9 / t : 50e9;
        Likwid lw{theirs, "MFlops/s", 16 * static_cast<uint64_t>(t), t,
                  std::max(kLikwidMinIters, static_cast<uint64_t>(kLikwidWindow * est / (16000 / 4 * 30.0)))};
        compare(row, probe, lw, 0.0005);
      }
      rows.push_back(row);
    }
    // Bandwidth rows at every level the full run's sweep found at this thread count, at the working sets where
    // it found each level's figure.
    struct BwRow { std::string level, kernel, theirs; };
    std::vector<BwRow> plan;
    bool dram = false;
    for (const auto& l : report.levels)
      if (l.threads == t) {
        plan.push_back({l.level, "read", "load_avx512"});
        plan.push_back({l.level, "triad", "stream_avx512"});
        dram |= l.level == "DRAM";
      }
    if (!dram) missing_dram.push_back("x" + std::to_string(t));
    uint64_t biggest = 0;
    for (const auto& m : report.memory)
      if (m.threads == t) biggest = std::max<uint64_t>(biggest, m.working_set_bytes);
    try {
      team->reserve(hw::bandwidth_buffer_bytes(biggest, t));
    } catch (const std::exception& e) {
      std::printf("x%d: cannot allocate %s: %s\n", t, size_str(static_cast<double>(biggest)).c_str(), e.what());
      continue;
    }
    for (const BwRow& p : plan) {
      Row row{p.kernel + " @" + p.level + " GB/s", p.theirs, t};
      const hw::BwKernel* k = bw_kernel(p.kernel);
      const rooflens::MemoryRoof* m = nullptr;
      for (const auto& x : report.memory)
        if (x.level == p.level && x.kernel == p.kernel && x.threads == t) m = &x;
      if (k && m) {
        row.report = m->gbps;
        size_t n = hw::bandwidth_elements(m->working_set_bytes, t, k->arrays);
        row.ws_ours = static_cast<double>(t) * k->arrays * static_cast<double>(n) * 8;
        hw::Probe probe = hw::Probe::bandwidth(*team, *k, n, hw::bandwidth_settle_bytes(report.machine, t));  // as `hw` does
        uint64_t kb = std::max<uint64_t>(1, (m->working_set_bytes + 500) / 1000);
        // One likwid iteration moves each thread's share of the working set once.
        double per_iter = static_cast<double>(kb) * 1000.0 / t;
        Likwid lw{p.theirs, "MByte/s", kb, t,
                  std::max(kLikwidMinIters, static_cast<uint64_t>(kLikwidWindow * m->gbps * 1e9 / t / per_iter))};
        compare(row, probe, lw, 0.0005);
      }
      rows.push_back(row);
    }
  }

  std::printf("\n%-22s %4s %-24s %10s %10s %10s %10s %10s %13s %7s %7s\n", "rooflens figure", "thr",
              "likwid-bench test", "ws ours", "ws likwid", "hw report", "rooflens", "likwid", "ratio", "paired", "others");
  int below = 0, compared = 0;
  for (const Row& r : rows) {
    std::string ratio = "n/a";
    if (r.ours > 0 && r.theirs > 0) {
      ++compared;
      ratio = fmt(r.ours / r.theirs, 3);
      if (r.ours / r.theirs < 0.97) ++below, ratio += " <0.97";
    }
    std::string others = r.others >= 0 ? fmt(r.others, 0) + "%" : "-";
    if (r.others == 0) others = "0%";
    std::printf("%-22s %4d %-24s %10s %10s %10s %10s %10s %13s %7s %7s\n", r.what.c_str(), r.threads,
                r.likwid_test.c_str(), r.ws_ours > 0 ? size_str(r.ws_ours).c_str() : "-",
                r.ws_theirs > 0 ? size_str(r.ws_theirs).c_str() : "-", fmt(r.report).c_str(), fmt(r.ours).c_str(),
                fmt(r.theirs).c_str(), ratio.c_str(), fmt(r.paired, 3).c_str(), others.c_str());
  }
  std::printf("\nrooflens = best of %d interleaved rounds of the kernel `rooflens hw` uses (0.5 ms repetitions);\n"
              "likwid = best of %d likwid-bench runs of ~%.0f ms (at least 10 iterations); hw report = the full run "
              "above;\nratio = rooflens / likwid (best against best); paired = median over rounds of the two figures "
              "measured back to back\nin one round (throughput here changes in episodes of seconds; the paired ratio "
              "shows whether a low ratio is the\nkernels or an episode); others = CPU share used by other processes "
              "while the row was measured.\n",
              rounds, rounds, kLikwidWindow * 1000);
  std::printf("%d of %d compared figure(s) below 97%% of likwid-bench\n", below, compared);
  std::string levels;
  for (int t : thread_counts) {
    levels += (levels.empty() ? "" : "; ") + std::string("x") + std::to_string(t) + ":";
    for (const auto& l : report.levels)
      if (l.threads == t) levels += " " + l.level;
  }
  std::printf("levels the full run found: %s\n", levels.c_str());
  std::string missing;
  for (const auto& m : missing_dram) missing += " " + m;
  std::printf("DRAM level at every thread count: %s\n", missing.empty() ? "yes" : ("MISSING at" + missing).c_str());
  return 0;
}
