#include "hw/hw_table.h"

#include <algorithm>
#include <sstream>

#include "core/text_table.h"
#include "core/units.h"

namespace rooflens::hw {

std::string binary_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  std::string s = fixed(v, v == static_cast<double>(static_cast<uint64_t>(v)) ? 0 : (v < 10 ? 2 : 1));
  return s + " " + units[u];
}

namespace {

// Where each level lies on the sweep, and the reported size that agreed with it.
std::string levels_table(const std::vector<MemoryLevel>& levels) {
  TextTable t{{{"level (sweep)"}, {"threads", true}, {"plateau from", true}, {"to", true}, {"reported", true}}, {}};
  for (const MemoryLevel& l : levels)
    t.rows.push_back({l.level, std::to_string(l.threads), binary_bytes(l.first_bytes), binary_bytes(l.last_bytes),
                      l.reported_bytes ? binary_bytes(l.reported_bytes) : "-"});
  return t.render();
}

}  // namespace

namespace {

// The machine's best native figure `of` an engine's (same dtype or level, same threads), for the "of the CPU's" column.
std::string share_of_native(double engine, double native) {
  return native > 0 ? fixed(100 * engine / native, 0) + "%" : "-";
}

// An engine's own roofs (WebAssembly), each beside the machine's native figure it stands under.
std::string engine_tables(const EngineRoofs& e, const HardwareInfo& native) {
  std::ostringstream out;
  out << "\n" << e.runtime << " — the roofs of " << e.engine << ", measured " << e.measured_at
      << (e.quick ? " (quick)" : "") << " by its own kernels\n";
  TextTable compute{
      {{"compute peak"}, {"isa"}, {"dtype"}, {"threads", true}, {"GFLOP/s", true}, {"of the CPU's", true}}, {}};
  for (const ComputeRoof& c : e.compute) {
    double best = 0;
    for (const ComputeRoof& n : native.compute)
      if (n.dtype == c.dtype && n.threads == c.threads) best = std::max(best, n.gflops);
    compute.rows.push_back(
        {c.name, c.isa, c.dtype, std::to_string(c.threads), fixed(c.gflops, 1), share_of_native(c.gflops, best)});
  }
  if (!compute.rows.empty()) out << compute.render();
  TextTable memory{{{"memory level"}, {"kernel"}, {"threads", true}, {"GB/s", true}, {"working set", true},
                    {"of the CPU's", true}},
                   {}};
  for (const MemoryRoof& r : e.memory) {
    double best = 0;
    for (const MemoryRoof& n : native.memory)
      if (n.level == r.level && n.threads == r.threads) best = std::max(best, n.gbps);
    memory.rows.push_back({r.level, r.kernel, std::to_string(r.threads), fixed(r.gbps, 1),
                           r.working_set_bytes ? binary_bytes(r.working_set_bytes) : "-",
                           share_of_native(r.gbps, best)});
  }
  if (!memory.rows.empty()) out << "\n" << memory.render();
  for (const std::string& n : e.notes) out << "note: " << n << "\n";
  return out.str();
}

}  // namespace

std::string render_hardware(const HardwareInfo& hw, bool verbose, const std::string& provenance) {
  std::ostringstream out;
  const MachineDesc& m = hw.machine;
  if (m.model.empty() && m.cores == 0) {
    out << "machine   not described\n";  // a hand-written datasheet may give only ceilings
  } else {
    out << "machine   " << (m.model.empty() ? "unknown CPU" : m.model)
        << (m.signature.empty() ? "" : " (" + m.signature + ")") << " — " << m.sockets << " socket(s), "
        << m.cores << " cores, " << m.threads << " threads, " << m.numa_nodes << " NUMA node(s), "
        << binary_bytes(m.memory_bytes) << " RAM";
    if (m.mhz > 0) out << ", " << fixed(m.mhz, 0) << " MHz";
    out << "\n";
  }
  if (!m.caches.empty()) {
    out << "caches    ";
    for (size_t i = 0; i < m.caches.size(); ++i)
      out << (i ? ", " : "") << m.caches[i].level << " " << binary_bytes(m.caches[i].size_bytes) << " x"
          << m.caches[i].instances;
    out << "\n";
  }
  if (!m.isa.empty()) {
    out << "isa       ";
    for (size_t i = 0; i < m.isa.size(); ++i) out << (i ? " " : "") << m.isa[i];
    out << "\n";
  }
  if (!m.os.empty() || !m.kernel.empty()) out << "os        " << m.os << " (" << m.kernel << ")\n";
  out << "source    " << provenance << "\n\n";

  TextTable compute{{{"compute peak"}, {"isa"}, {"dtype"}, {"threads", true}, {"GFLOP/s", true}}, {}};
  bool int8 = false;
  for (const ComputeRoof& c : hw.compute) {
    compute.rows.push_back({c.name, c.isa, c.dtype, std::to_string(c.threads), fixed(c.gflops, 1)});
    int8 |= c.dtype == "int8";
  }
  if (!compute.rows.empty()) out << compute.render();
  if (int8) out << "(int8 rows: giga-operations/s, multiply and add each one op)\n";
  if (!compute.rows.empty()) out << "\n";

  TextTable memory{{{"memory level"}, {"kernel"}, {"threads", true}, {"GB/s", true}, {"working set", true}}, {}};
  for (const MemoryRoof& r : hw.memory)
    memory.rows.push_back({r.level, r.kernel, std::to_string(r.threads), fixed(r.gbps, 1),
                           r.working_set_bytes ? binary_bytes(r.working_set_bytes) : "-"});
  if (!memory.rows.empty()) out << memory.render();
  if (!hw.levels.empty()) out << "\n" << levels_table(hw.levels);
  for (const std::string& n : hw.notes) out << "note: " << n << "\n";
  for (const std::string& w : hw.warnings) out << "warning: " << w << "\n";

  if (verbose && !hw.sweep.empty()) {
    TextTable sweep{{{"kernel"}, {"threads", true}, {"working set", true}, {"GB/s", true}}, {}};
    for (const SweepPoint& p : hw.sweep)
      sweep.rows.push_back({p.kernel, std::to_string(p.threads), binary_bytes(p.working_set_bytes), fixed(p.gbps, 2)});
    out << "\nsweep\n" << sweep.render();
  }
  for (const HwError& e : hw.errors) out << "error: " << e.benchmark << ": " << e.message << "\n";
  for (const EngineRoofs& e : hw.engines) out << engine_tables(e, hw);
  return out.str();
}

}  // namespace rooflens::hw
