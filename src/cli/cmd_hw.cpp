// `rooflens hw`: measure (or reuse the cached) compute and bandwidth ceilings of this machine.
#include <fstream>
#include <iostream>
#include <memory>

#include "backends/registry/registry.h"
#include "cli/commands.h"
#include "core/errors.h"
#include "core/report.h"
#include "hw/cpu_features.h"
#include "hw/datasheets.h"
#include "hw/hw_table.h"
#include "hw/machine.h"
#include "hw/measure.h"
#include "hw/roof_cache.h"
#include "hw/roof_source.h"
#include "hw/team.h"
#include "core/build_info.h"

namespace rooflens::cli {
namespace {

struct HwArgs {
  bool quick = false, refresh = false, verbose = false;
  std::string output;  // -o FILE: the report's JSON to FILE ('-' = stdout)
  std::string json;    // --json: "-" prints the JSON on stdout; the deprecated `--json FILE` writes FILE
  std::string roofs, without_isa, device;
  std::vector<int> threads;
  std::vector<std::string> wasm;  // hosts of the web build whose WebAssembly roofs to measure: node, chromium
};

// The WebAssembly roofs of each host in `hosts` (cached unless `refresh`), measured by the web build's runner.
void add_wasm_roofs(HardwareInfo& hw, const std::vector<std::string>& hosts, bool quick, bool refresh) {
  for (const std::string& host : hosts) {
    std::unique_ptr<Backend> web = make_backend(parse_backend_spec("ortweb:host=" + host));
    // The engine as the web build's runs name it (Measurement::roofs_engine), so a profile finds these in the cache.
    const BackendInfo info = web->info();
    std::optional<EngineRoofs> e = hw::engine_roofs_here(
        info.roofs_engine, info.runtime, [&] { return web->measure_engine_roofs(quick); }, refresh,
        [](const std::string& s) { std::cerr << "rooflens hw: " << s << "\n"; });
    if (e) hw.engines.push_back(std::move(*e));
  }
}

void write_report(const std::string& path, const HardwareInfo& hw) {
  Report r;
  r.tool = tool_info("hw");
  r.hardware = hw;
  std::string text = report_to_json(r);
  if (path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!(f << text)) throw UserError(path + ": cannot write the report");
}

int run_hw(const HwArgs& a) {
  HardwareInfo hw;
  std::string provenance;
  if (!a.device.empty()) {
    const hw::DatasheetDevice& d = hw::find_datasheet_device(a.device);
    hw = hw::datasheet_hardware(d);
    provenance = "datasheet ceilings of " + d.name + " (" + d.source_title + ") — NOT measured by rooflens";
  } else if (!a.roofs.empty()) {
    hw = hw::load_roofs_file(a.roofs);
    provenance = hw.source == "datasheet" ? "datasheet ceilings from " + a.roofs + " — NOT measured on this machine"
                                          : "measured elsewhere/earlier, read from " + a.roofs;
  } else {
    size_t cpus = hw::pinning_order().size();
    for (int t : a.threads)
      if (t > static_cast<int>(cpus))
        throw UserError("--threads " + std::to_string(t) + ": this process may use only " + std::to_string(cpus) +
                        " CPUs");
    hw::HwOptions opts;
    opts.quick = a.quick;
    opts.threads = a.threads;
    opts.force_mask = hw::kAllFeatures & ~hw::parse_features(a.without_isa);
    opts.progress = [](const std::string& s) { std::cerr << "rooflens hw: measuring " << s << "\n"; };
    // Only the default configuration is cached: a run with fewer threads or masked ISAs is not "the roofs".
    bool cacheable = a.threads.empty() && a.without_isa.empty();
    std::string dir = hw::cache_dir_from_env();
    MachineDesc here = hw::describe_machine(hw::detect_features());
    std::string key = hw::cache_key(here, ROOFLENS_VERSION);
    std::optional<HardwareInfo> cached;
    if (cacheable && !a.refresh) cached = hw::load_cached(dir, key, !a.quick);
    if (cached) {
      hw = *cached;
      provenance = "measured " + hw.measured_at + (hw.quick ? " (--quick)" : "") + ", cached in " +
                   hw::cache_file(dir, key) + " (--refresh measures again)";
    } else {
      hw = hw::measure_hardware(opts, ROOFLENS_VERSION);
      provenance = "measured now" + std::string(a.quick ? " (--quick: each dtype's best peak, a coarse read/triad sweep)" : "");
      if (cacheable) {
        try {
          hw::store_cached(dir, hw);
        } catch (const std::exception& e) {
          std::cerr << "rooflens hw: warning: " << e.what() << " (results not cached)\n";
        }
      }
    }
  }
  // With --json - stdout carries the JSON alone, so it stays machine-readable.
  add_wasm_roofs(hw, a.wasm, a.quick, a.refresh);
  // -o and --json are two requests, both kept (`--json -o F` prints the JSON and writes F).
  const bool json_on_stdout = a.json == "-" || a.output == "-";
  if (json_on_stdout) write_report("-", hw);
  else std::cout << hw::render_hardware(hw, a.verbose, provenance);
  for (const std::string& file : {a.output, a.json})
    if (!file.empty() && file != "-") write_report(file, hw);
  return 0;
}

}  // namespace

void setup_hw(CLI::App& root, Action& action) {
  auto args = std::make_shared<HwArgs>();
  auto* cmd = root.add_subcommand("hw", "Measure this machine's roofs: compute peaks per ISA/dtype, bandwidth per memory level");
  auto* quick = cmd->add_flag("--quick", args->quick, "Fast check: the best peak of each dtype and a coarse read/triad sweep (a few seconds)");
  auto* refresh = cmd->add_flag("--refresh", args->refresh, "Measure again even when cached roofs exist");
  cmd->add_flag("-v,--verbose", args->verbose, "Also print the whole bandwidth sweep");
  cmd->add_option("-o,--output", args->output, "Write the report (with its hardware section) to FILE ('-' = stdout)");
  // --json alone prints the report on stdout; the older `--json FILE` still writes FILE, with a note.
  cmd->add_option("--json", args->json, "Print the report on stdout (JSON) instead of the table")
      ->expected(0, 1)
      ->default_str("-")
      ->each([](const std::string& v) {
        if (!v.empty() && v != "-")
          std::cerr << "rooflens hw: --json FILE is deprecated and goes away in the next release; use -o FILE\n";
      });
  auto* threads = cmd->add_option("--threads", args->threads, "Thread counts to measure, e.g. 1,2,4 (default: 1 and all cores)")
                      ->delimiter(',')
                      ->check(CLI::PositiveNumber);
  auto* without = cmd->add_option("--without-isa", args->without_isa,
                                  "Measure as if these ISA features were absent, e.g. avx512f (comma-separated)");
  auto* device = cmd->add_option("--device", args->device, "Show a datasheet device's ceilings (rooflens whatif "
                                                          "--list-devices) instead of measuring; with -o FILE, a "
                                                          "roofs file for profile --roofs")
                     ->excludes(quick)
                     ->excludes(refresh)
                     ->excludes(threads)
                     ->excludes(without);
  cmd->add_option("--wasm", args->wasm,
                  "Also measure WebAssembly's roofs, which -B ortweb runs meet: in node, chromium or both "
                  "(comma-separated), by the web build's runner")
      ->delimiter(',')
      ->check(CLI::IsMember({"node", "chromium"}));
  cmd->add_option("--roofs", args->roofs, "Show user-supplied ceilings from FILE (same JSON; \"source\": \"datasheet\") instead of measuring")
      ->excludes(device)
      ->excludes(quick)
      ->excludes(refresh)
      ->excludes(threads)
      ->excludes(without);
  cmd->footer(
      "Memory levels come from the measured sweep; reported cache sizes are hints (docs/roofs.md).\n"
      "Results are cached per machine under $XDG_CACHE_HOME/rooflens (or ~/.cache/rooflens), keyed by the\n"
      "machine's class (CPU model, cores, usable ISA, cache sizes, memory) and rooflens version, and reused\n"
      "unless --refresh.\n"
      "Examples:\n"
      "  rooflens hw --quick\n"
      "  rooflens hw --wasm node,chromium\n"
      "  rooflens hw --refresh --threads 1,2 --verbose -o roofs.json\n"
      "  rooflens hw --roofs datasheet.json\n"
      "  rooflens hw --device a100 -o a100.json");
  cmd->callback([args, &action] { action = [args] { return run_hw(*args); }; });
}

}  // namespace rooflens::cli
