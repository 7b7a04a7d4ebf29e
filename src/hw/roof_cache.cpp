#include "hw/roof_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace rooflens::hw {
namespace fs = std::filesystem;

namespace {
std::optional<std::string> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

std::string cache_key(const MachineDesc& m, const std::string& version) {
  // The signature beside the brand: a hypervisor's "AMD EPYC" is a Zen 4 and a Zen 5 alike, with the same ISA bits.
  std::string key = m.model + (m.signature.empty() ? "" : " (" + m.signature + ")") + "|" + std::to_string(m.cores) +
                    " cores|isa";
  for (const std::string& f : m.isa) key += " " + f;
  key += "|caches";
  for (const CacheInfo& c : m.caches) key += " " + c.level + ":" + std::to_string(c.size_bytes) + "x" + std::to_string(c.instances);
  return key + "|memory " + std::to_string(m.memory_bytes) + "|rooflens " + version + "|roofs " + std::to_string(kRoofsRevision);
}

std::string cache_dir(const char* xdg, const char* home) {
  if (xdg && *xdg) return (fs::path(xdg) / "rooflens").string();
  if (home && *home) return (fs::path(home) / ".cache" / "rooflens").string();
  return "";
}

std::string cache_dir_from_env() { return cache_dir(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")); }

std::string cache_file(const std::string& dir, const std::string& key) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: a stable file name per key (std::hash is not stable)
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char name[40];
  std::snprintf(name, sizeof name, "hw-%016llx.json", static_cast<unsigned long long>(h));
  return (fs::path(dir) / name).string();
}

std::optional<HardwareInfo> load_cached(const std::string& dir, const std::string& key, bool need_full) {
  if (dir.empty()) return std::nullopt;
  auto text = slurp(cache_file(dir, key));
  if (!text) return std::nullopt;
  try {
    HardwareInfo hw = hardware_from_json(*text);
    if (hw.cache_key != key || hw.source != "measured") return std::nullopt;
    if (need_full && hw.quick) return std::nullopt;
    return hw;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache is just a miss: measure again and overwrite it
  }
}

void store_cached(const std::string& dir, const HardwareInfo& hw) {
  if (dir.empty()) throw UserError("no cache directory: set XDG_CACHE_HOME or HOME");
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string path = cache_file(dir, hw.cache_key), tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << hardware_to_json(hw))) throw UserError(dir + ": cannot write the roof cache");
  }
  fs::rename(tmp, path, ec);
  if (ec) throw UserError(path + ": cannot write the roof cache (" + ec.message() + ")");
}

HardwareInfo load_roofs_file(const std::string& path) {
  auto text = slurp(path);
  if (!text) throw UserError(path + ": cannot read the roofs file");
  try {
    HardwareInfo hw = hardware_from_json(*text);
    if (hw.compute.empty() && hw.memory.empty())
      throw UserError("no ceilings in it (need hardware.compute[] or hardware.memory[])");
    return hw;
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
}

}  // namespace rooflens::hw
