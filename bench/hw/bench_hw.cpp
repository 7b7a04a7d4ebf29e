// `make bench`, part 2: `rooflens hw` next to likwid-bench on the same machine, in the same run.
//   1. wall time of `rooflens hw --quick` (target ≤ 5 s) and of the full `rooflens hw` (target ≤ 60 s),
//      both with --refresh into a private cache directory so nothing is reused;
//   2. the full run's ceilings against likwid-bench kernels doing the same work at the same working set:
//        fp32_fma_avx512 ↔ peakflops_sp_avx512_fma   fp32_fma_avx2 ↔ peakflops_sp_avx_fma
//        read  @ L1/L2/L3/DRAM ↔ load_avx512          triad @ DRAM ↔ stream_avx512
//      for 1 thread and all threads; ratio = rooflens / likwid (target ≥ 0.97).
// Like with like: both count bytes as STREAM does (no write-allocate), both use ordinary stores (likwid's
// stream_avx512 is the temporal-store variant; stream_mem_avx512 would be the non-temporal one), and likwid's
// -w size is the total working set over all arrays and threads, as rooflens' working_set_bytes is.
// likwid's peakflops kernels also stream a small array (one load per update); 32 kB keeps it in L1.
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/report.h"

namespace fs = std::filesystem;
using rooflens::HardwareInfo;

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

// likwid-bench prints "MFlops/s:\t\t78227.09" and "MByte/s:\t\t10430.28"; returns the value / 1000 (G).
double likwid_value(const std::string& out, const std::string& label) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(label + ":", 0) == 0) return std::strtod(line.c_str() + label.size() + 1, nullptr) / 1000.0;
  return -1;
}

struct Row { std::string what; double ours = -1, theirs = -1; };

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

int main() {
  fs::path tmp = fs::temp_directory_path() / "rooflens-bench-hw";
  fs::create_directories(tmp);
  std::string env = "XDG_CACHE_HOME=" + tmp.string() + " ";
  std::string bin = ROOFLENS_BINARY;

  Run quick = shell(env + bin + " hw --quick --refresh --json " + (tmp / "quick.json").string());
  Run full = shell(env + bin + " hw --refresh --json " + (tmp / "full.json").string());
  if (quick.rc != 0 || full.rc != 0) {
    std::fprintf(stderr, "bench_hw: rooflens hw failed:\n%s%s", quick.out.c_str(), full.out.c_str());
    return 1;
  }
  std::printf("rooflens hw --quick: %.2f s (target <= 5 s) %s\n", quick.seconds, quick.seconds <= 5 ? "ok" : "MISSED");
  std::printf("rooflens hw (full):  %.2f s (target <= 60 s) %s\n\n", full.seconds, full.seconds <= 60 ? "ok" : "MISSED");
  HardwareInfo hw = rooflens::hardware_from_json(slurp((tmp / "full.json").string()));

  bool have_likwid = shell("command -v likwid-bench").rc == 0;
  if (!have_likwid) std::printf("likwid-bench not found (make deps installs Debian's likwid): ours only\n");
  int all = 1;
  for (const auto& c : hw.compute) all = std::max<int>(all, static_cast<int>(c.threads));

  auto likwid = [&](const std::string& test, uint64_t bytes, int threads, const std::string& label) {
    if (!have_likwid) return -1.0;
    uint64_t kb = std::max<uint64_t>(1, bytes / 1000);  // likwid's kB is 1000 bytes
    Run r = shell("likwid-bench -t " + test + " -w S0:" + std::to_string(kb) + "kB:" + std::to_string(threads));
    return r.rc == 0 ? likwid_value(r.out, label) : -1.0;
  };

  std::vector<Row> rows;
  for (int t : all > 1 ? std::vector<int>{1, all} : std::vector<int>{1}) {
    for (auto [ours, theirs] : {std::pair{"fp32_fma_avx512", "peakflops_sp_avx512_fma"},
                                std::pair{"fp32_fma_avx2", "peakflops_sp_avx_fma"}}) {
      Row row{std::string(ours) + " GFLOP/s x" + std::to_string(t) + " vs " + theirs};
      for (const auto& c : hw.compute)
        if (c.name == ours && c.threads == t) row.ours = c.gflops;
      if (row.ours > 0) row.theirs = likwid(theirs, 32000, t, "MFlops/s");
      rows.push_back(row);
    }
    for (auto [level, kernel, theirs] : {std::tuple{"L1", "read", "load_avx512"}, std::tuple{"L2", "read", "load_avx512"},
                                         std::tuple{"L3", "read", "load_avx512"}, std::tuple{"DRAM", "read", "load_avx512"},
                                         std::tuple{"DRAM", "triad", "stream_avx512"}}) {
      Row row{std::string(kernel) + " @" + level + " GB/s x" + std::to_string(t) + " vs " + theirs};
      for (const auto& m : hw.memory)
        if (m.level == level && m.kernel == kernel && m.threads == t) {
          row.ours = m.gbps;
          row.what += " (" + std::to_string(m.working_set_bytes / 1024) + " KiB)";
          row.theirs = likwid(theirs, m.working_set_bytes, t, "MByte/s");
        }
      rows.push_back(row);
    }
  }
  std::printf("%-72s %10s %10s %7s\n", "ceiling (same kernel, same working set)", "rooflens", "likwid", "ratio");
  int below = 0;
  for (const Row& r : rows) {
    auto cell = [](double v) { return v > 0 ? std::to_string(v).substr(0, std::to_string(v).find('.') + 2) : std::string("n/a"); };
    std::string ratio = r.ours > 0 && r.theirs > 0 ? std::to_string(r.ours / r.theirs).substr(0, 5) : "n/a";
    if (r.ours > 0 && r.theirs > 0 && r.ours / r.theirs < 0.97) ++below, ratio += " <0.97";
    std::printf("%-72s %10s %10s %7s\n", r.what.c_str(), cell(r.ours).c_str(), cell(r.theirs).c_str(), ratio.c_str());
  }
  std::printf("\n%d ceiling(s) below 97%% of likwid-bench%s\n", below,
              below ? " (on a shared VM, rerun: both sides are best-of-K but noise differs)" : "");
  return 0;
}
