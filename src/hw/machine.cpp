#include "hw/machine.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <hwloc.h>

namespace rooflens::hw {
namespace {

std::string first_line_after(const std::string& path, const std::string& prefix) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  return "";
}

std::string trim(std::string s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '"' || c == ':'; };
  while (!s.empty() && ws(s.front())) s.erase(s.begin());
  while (!s.empty() && ws(s.back())) s.pop_back();
  return s;
}

double read_mhz() {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (f >> khz && khz > 0) return khz / 1000.0;
  std::string mhz = trim(first_line_after("/proc/cpuinfo", "cpu MHz"));
  return mhz.empty() ? 0 : std::strtod(mhz.c_str(), nullptr);
}

void describe_topology(MachineDesc& m) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return;
  }
  m.sockets = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
  m.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  m.threads = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  m.numa_nodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0)) {
    if (const char* v = hwloc_obj_get_info_by_name(pkg, "CPUVendor")) m.vendor = v;
    if (const char* v = hwloc_obj_get_info_by_name(pkg, "CPUModel")) m.model = v;
  }
  struct Level { hwloc_obj_type_t type; const char* name; };
  for (Level lv : {Level{HWLOC_OBJ_L1CACHE, "L1d"}, Level{HWLOC_OBJ_L2CACHE, "L2"}, Level{HWLOC_OBJ_L3CACHE, "L3"},
                   Level{HWLOC_OBJ_L4CACHE, "L4"}}) {
    int n = hwloc_get_nbobjs_by_type(topo, lv.type);
    if (n <= 0) continue;
    hwloc_obj_t c = hwloc_get_obj_by_type(topo, lv.type, 0);
    if (c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
    int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, c->cpuset, HWLOC_OBJ_CORE);
    m.caches.push_back({lv.name, c->attr->cache.size, n, std::max(1, cores)});
  }
  hwloc_topology_destroy(topo);
}

}  // namespace

uint64_t available_memory_bytes() {
  std::string kb = trim(first_line_after("/proc/meminfo", "MemAvailable:"));
  return kb.empty() ? 0 : std::strtoull(kb.c_str(), nullptr, 10) * 1024;
}

MachineDesc describe_machine(FeatureMask usable) {
  MachineDesc m;
  describe_topology(m);
  if (m.model.empty()) m.model = trim(first_line_after("/proc/cpuinfo", "model name"));
  if (m.vendor.empty()) m.vendor = trim(first_line_after("/proc/cpuinfo", "vendor_id"));
  m.signature = cpu_signature();
  if (m.cores == 0) m.cores = m.threads = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  m.memory_bytes = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  m.mhz = read_mhz();
  m.os = trim(first_line_after("/etc/os-release", "PRETTY_NAME="));
  struct utsname u {};
  if (uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  m.isa = feature_names(usable);
  return m;
}

std::vector<uint64_t> cache_capacities(const MachineDesc& m, int threads) {
  std::vector<uint64_t> caps;
  for (const CacheInfo& c : m.caches) {
    int64_t sharing = std::max<int64_t>(1, c.cores_sharing);
    int64_t spanned = std::min<int64_t>(std::max<int64_t>(1, c.instances), (threads + sharing - 1) / sharing);
    caps.push_back(c.size_bytes * static_cast<uint64_t>(spanned));
  }
  return caps;
}

}  // namespace rooflens::hw
