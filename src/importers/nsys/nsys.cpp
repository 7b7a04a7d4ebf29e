// Nsight Systems export -> Measurement. What an nsys user reads first is `nsys stats`' GPU kernel summary: each
// distinct kernel with its total time over its launches. So each distinct kernel (by demangled name, shown by its
// short name) is one record whose time in an iteration is the sum over its launches there, and so is each memcpy
// direction and memset. Iterations: NVTX ranges when the program marked them — of the series of ranges that repeats
// (names alike but for their digits: "Step 0 to 10", "Step 10 to 20", ...) under which the most GPU time was
// launched, or --option range=NAME — else the whole capture as one. An activity belongs to the range its launch
// (CUPTI_ACTIVITY_KIND_RUNTIME, by correlation id) started in; without the launch, the range its own start is in.
#include "importers/nsys/nsys.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "importers/gpu_activity.h"
#include "importers/nsys/nsys_tables.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

using nsys::Activity;
using nsys::ActivityKind;
using nsys::Range;

constexpr size_t npos = static_cast<size_t>(-1);

// The host time each activity was launched at (its own start when the export has no launch for it).
std::vector<int64_t> launch_of(const std::vector<Activity>& acts, const nsys::Db& db) {
  auto launches = nsys::launch_times(db);
  std::vector<int64_t> out;
  for (const Activity& a : acts) {
    int64_t t = a.start;
    if (a.correlation) {
      auto it = launches.find({a.pid.value_or(-1), *a.correlation});
      if (it != launches.end()) t = it->second;
    }
    out.push_back(t);
  }
  return out;
}

// Index of the range (sorted by start, none inside another) holding time t; npos when none does.
size_t range_at(const std::vector<Range>& ranges, int64_t t) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), t, [](int64_t v, const Range& r) { return v < r.start; });
  if (it == ranges.begin()) return npos;
  --it;
  return t <= it->end ? static_cast<size_t>(it - ranges.begin()) : npos;
}

// Ranges no other range holds, by start.
std::vector<Range> outermost(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
  std::vector<Range> out;
  for (auto& r : ranges)
    if (out.empty() || r.end > out.back().end) out.push_back(std::move(r));
  return out;
}

// Activity time launched inside `ranges` (sorted, none inside another).
double launched_in(const std::vector<Range>& ranges, const std::vector<Activity>& acts, const std::vector<int64_t>& launch) {
  double t = 0;
  for (size_t i = 0; i < acts.size(); ++i)
    if (range_at(ranges, launch[i]) != npos) t += static_cast<double>(acts[i].end - acts[i].start);
  return t;
}

// The iteration ranges. `range=NAME`: the ranges whose name starts with NAME (outermost among them). Otherwise the
// ranges of one name series (digits aside) that repeats — a loop's steps — under which the most activity time was
// launched; a series of one range ("Loop" around the steps) only when no series repeats.
std::vector<Range> iteration_ranges(const std::vector<Range>& all, const std::vector<Activity>& acts,
                                    const std::vector<int64_t>& launch, const std::string& wanted) {
  std::map<std::string, std::vector<Range>> series;
  for (const auto& r : all)
    if (wanted.empty() ? true : r.name.rfind(wanted, 0) == 0) series[wanted.empty() ? without_digits(r.name) : wanted].push_back(r);
  std::vector<Range> best;
  double best_time = 0;
  bool best_repeats = false;
  for (auto& [name, ranges] : series) {
    std::vector<Range> outer = outermost(std::move(ranges));
    double t = launched_in(outer, acts, launch);
    bool repeats = outer.size() > 1;
    if (t > 0 && (repeats > best_repeats || (repeats == best_repeats && t > best_time)))
      best = std::move(outer), best_time = t, best_repeats = repeats;
  }
  return best;
}

KernelRecord nsys_record_of(const Activity& a) {
  KernelRecord k;
  k.device = "cuda:" + std::to_string(a.device);
  k.device_class = Device::gpu;
  k.name = a.name;
  if (a.kind == ActivityKind::kernel) {
    k.op = a.name;
    k.implementation = a.demangled;
    return k;
  }
  k.op = a.kind == ActivityKind::memcpy ? "Memcpy" : "Memset";
  if (a.kind == ActivityKind::memcpy) k.kind = LayerKind::copy;
  k.flops = 0;  // moves or fills bytes, computes nothing
  k.bytes = a.bytes;
  return k;
}

// Each activity in the range its launch started in; those outside every range are counted, not kept.
struct RangePlacement {
  std::vector<GpuActivity> acts;
  size_t outside = 0;
  double outside_ms = 0;
};

RangePlacement place_in_ranges(const std::vector<Activity>& acts, const std::vector<int64_t>& launch,
                        const std::vector<Range>& ranges) {
  RangePlacement p;
  const int64_t t0 = acts.front().start;  // ns on the capture's clock: from its first activity, exact in a double
  for (size_t i = 0; i < acts.size(); ++i) {
    const Activity& a = acts[i];
    size_t it = ranges.empty() ? 0 : range_at(ranges, launch[i]);
    if (it == npos) {
      ++p.outside, p.outside_ms += static_cast<double>(a.end - a.start) / 1e6;
      continue;
    }
    GpuActivity g;
    g.record = nsys_record_of(a);
    g.key = g.record.device + '\x1f' + (a.kind == ActivityKind::kernel ? a.demangled : a.name);
    g.start_ms = static_cast<double>(a.start - t0) / 1e6;
    g.end_ms = static_cast<double>(a.end - t0) / 1e6;
    g.iteration = it;
    p.acts.push_back(std::move(g));
  }
  return p;
}

std::string busiest_gpu(const std::vector<Activity>& acts, const std::map<int64_t, std::string>& names, Measurement& m) {
  std::map<int64_t, double> busy;
  for (const auto& a : acts) busy[a.device] += static_cast<double>(a.end - a.start);
  auto top = std::max_element(busy.begin(), busy.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (busy.size() > 1)
    m.warnings.push_back("the capture ran on " + std::to_string(busy.size()) + " GPUs: roofs are those of cuda:" +
                         std::to_string(top->first) + ", the busiest");
  auto it = names.find(top->first);
  return it == names.end() ? "" : it->second;
}

class NsysImporter : public Importer {
 public:
  std::string name() const override { return "nsys"; }
  std::vector<std::string> aliases() const override { return {"nsight-systems"}; }
  std::string description() const override {
    return "Nsight Systems SQLite export (nsys export --type sqlite): kernels per NVTX iteration (--option "
           "iterations=nvtx|capture, range=NAME)";
  }
  int recognizes(const InputFile& f) const override {
    if (f.text.size() < 100 || f.text.compare(0, 16, std::string("SQLite format 3\0", 16)) != 0) return 0;
    // The schema (sqlite_master) sits in the first pages: nsys' own table names mark its exports.
    std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 1 << 20));
    return contains(head, "CUPTI_ACTIVITY_KIND_") || contains(head, "TARGET_INFO_GPU") || contains(head, "NVTX_EVENTS")
               ? 20
               : 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {"iterations", "range"});
    std::string mode = option_choice(name(), options, "iterations", {"nvtx", "capture"}, "nvtx");
    std::string wanted = options.count("range") ? options.at("range") : "";
    if (files.size() != 1) throw UserError("nsys: give one .sqlite export per import");
    const InputFile& f = files[0];
    nsys::Db db(f);
    nsys::ExportInfo info = nsys::export_info(db);
    std::vector<Activity> acts = nsys::read_activities(db);
    if (acts.empty())
      throw UserError(f.path + ": no CUDA kernel, memcpy or memset in the export (was it captured with -t cuda?)");
    std::vector<int64_t> launch = launch_of(acts, db);
    std::vector<Range> ranges = mode == "nvtx" ? iteration_ranges(nsys::nvtx_ranges(db), acts, launch, wanted) : std::vector<Range>{};
    if (!wanted.empty() && ranges.empty()) throw UsageError("nsys: no NVTX range named " + wanted + "... in " + f.path);

    Imported out;
    Measurement& m = out.measurement;
    RangePlacement placed = place_in_ranges(acts, launch, ranges);
    std::vector<GpuActivity>& gpu = placed.acts;
    if (gpu.empty()) throw UserError(f.path + ": no GPU activity was launched inside the NVTX ranges named " + wanted + "...");
    std::vector<double> wall;
    for (const auto& r : ranges) wall.push_back(static_cast<double>(r.end - r.start) / 1e6);
    size_t counted = gpu.size();
    GpuRun run = fill_gpu_measurement(m, std::move(gpu), ranges.empty() ? 1 : ranges.size(), wall, Repeats::summed);
    m.device_name = busiest_gpu(acts, nsys::gpu_names(db), m);
    if (ranges.empty())
      m.warnings.push_back("the whole capture is one iteration (" +
                           std::string(mode == "capture" ? "--option iterations=capture" : "no NVTX ranges around its launches") +
                           "): its time is the GPU's span");
    if (placed.outside > 0)
      m.warnings.push_back(std::to_string(placed.outside) + " GPU activities (" + fmt::format("{:.3f}", placed.outside_ms) +
                           " ms) were launched outside the NVTX iteration ranges and are left out (--option "
                           "iterations=capture keeps them)");
    if (run.overlapped_iterations > 0)
      m.warnings.push_back("GPU activities overlapped (several streams) in " + std::to_string(run.overlapped_iterations) +
                           " iteration(s): the run time is Σ activity time + the GPU's idle gaps, not its span");
    out.rules = &plain_mapping_rules();
    out.backend.name = "nsys";
    out.backend.version = info.product;
    out.backend.runtime = "Nsight Systems SQLite export (schema " + info.schema + ")";
    out.backend.options = {{"iterations", ranges.empty() ? "capture" : "nvtx"}};
    if (!m.device_name.empty()) out.backend.options["device"] = m.device_name;
    std::string series = ranges.empty() ? "the whole capture as one iteration"
                                        : std::to_string(run.iterations) + " NVTX iteration ranges ('" +
                                              ranges.front().name + "', ...)";
    out.read.push_back(f.path + ": Nsight Systems export schema " + info.schema + ", " + std::to_string(counted) +
                       " GPU activities (" + std::to_string(m.kernels.size()) + " distinct) in " + series +
                       (m.device_name.empty() ? "" : "; device " + m.device_name));
    return out;
  }
};

}  // namespace

const Importer& nsys_importer() {
  static const NsysImporter importer;
  return importer;
}

}  // namespace rooflens::importers
