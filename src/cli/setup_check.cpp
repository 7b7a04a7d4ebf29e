#include "cli/setup_check.h"

#include <unistd.h>

#include <filesystem>

#include "backends/registry/registry.h"
#include "core/build_info.h"
#include "db/store.h"
#include "db/url.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "hw/roof_source.h"

namespace rooflens::cli {
namespace {

// The first line of an error, for a one-line detail.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

SetupItem roofs_item() {
  SetupItem it{"roofs", false, false, ""};
  const MachineDesc here = hw::describe_machine(hw::detect_features());
  if (auto cached = hw::cached_roofs_here()) {
    it.ok = true;
    it.detail = std::string(cached->quick ? "quick" : "full") + " roofs measured " + cached->measured_at + " on " +
                here.model + (cached->quick ? " (`rooflens hw` measures every ceiling: int8, bf16, every level; ~25 s)"
                                            : "");
  } else {
    it.detail = "none cached for " + here.model + ": the first profile measures them (hw --quick, ~4 s); `rooflens "
                "hw` measures every ceiling (~25 s)";
  }
  return it;
}

SetupItem database_item() {
  SetupItem it{"database", false, false, ""};
  try {
    const std::string url = db::resolve_db_url("");
    auto store = db::ResultStore::open(url);
    it.ok = true;
    it.detail = url;
  } catch (const std::exception& e) {
    it.detail = first_line(e.what()) + " (profile still writes its report; --no-db skips the database)";
  }
  return it;
}

SetupItem program_item(const std::string& what, const std::string& path, const std::string& install) {
  const bool found = ::access(path.c_str(), X_OK) == 0;
  return {what, found, false, found ? path : "not found (" + install + ")"};
}

}  // namespace

std::vector<SetupItem> runtime_items() {
  std::vector<SetupItem> out;
  for (const auto& entry : backend_entries()) {
    SetupItem it{"runtime " + entry.name, false, entry.name == "onnxruntime", ""};
    try {
      BackendSpec spec;
      spec.name = entry.name;
      const BackendInfo info = entry.make(spec)->info();
      it.ok = true;
      it.detail = info.version + " — " + info.runtime;
    } catch (const std::exception& e) {
      it.detail = "not usable: " + first_line(e.what()) + " (make deps-run installs it)";
    }
    out.push_back(std::move(it));
  }
  for (const auto& [name, why] : backends_left_out())
    out.push_back({"runtime " + name, false, false, "not built into this rooflens (" + why + ")"});
  return out;
}

std::vector<SetupItem> environment_items() {
  return {roofs_item(), database_item(),
          program_item("chromium (-B ortweb:host=chromium, browser tests, make screenshots)", "/usr/bin/chromium",
                       "apt-get install chromium; make deps installs it"),
          program_item("likwid-bench (make bench's roof check)", "/usr/bin/likwid-bench", "make deps installs it")};
}

std::string version_text() {
  std::string out = std::string("rooflens ") + ROOFLENS_VERSION + " (" + rooflens_commit() + ")\n";
  for (const auto& it : runtime_items()) out += "  " + it.what + ": " + it.detail + "\n";
  out += "  built with:";
  for (const auto& c : built_with()) out += " " + c.name + " " + c.version + ",";
  out.back() = '\n';
  return out;
}

}  // namespace rooflens::cli
