// The datasheet table (data/datasheets.json, linked in by datasheets_data.cpp) read into devices.
#include "hw/datasheets.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "hw/datasheets_data.h"


namespace rooflens::hw {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<DatasheetDevice> parse() {
  auto j = nlohmann::json::parse(datasheets_json(), nullptr, false);
  if (j.is_discarded() || !j.contains("devices")) throw std::logic_error("data/datasheets.json is malformed");
  std::vector<DatasheetDevice> out;
  for (const auto& d : j.at("devices")) {
    DatasheetDevice x;
    x.id = d.at("id");
    x.name = d.at("name");
    x.aliases = d.value("aliases", std::vector<std::string>{});
    x.fp32 = d.at("fp32");
    x.tf32 = d.at("tf32");
    x.fp16 = d.at("fp16");
    x.int8 = d.at("int8");
    x.memory_gbps = d.at("memory_gbps");
    x.memory = d.value("memory", "");
    x.source_title = d.at("source").at("title");
    x.source_url = d.at("source").at("url");
    x.note = d.value("note", "");
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace

const std::vector<DatasheetDevice>& datasheet_devices() {
  static const std::vector<DatasheetDevice> devices = parse();
  return devices;
}

const DatasheetDevice& find_datasheet_device(const std::string& name) {
  std::string want = lower(name);
  for (const auto& d : datasheet_devices()) {
    if (lower(d.id) == want || lower(d.name) == want) return d;
    for (const auto& a : d.aliases)
      if (lower(a) == want) return d;
  }
  std::string known;
  for (const auto& d : datasheet_devices()) known += (known.empty() ? "" : ", ") + d.id;
  throw UserError("no datasheet for device '" + name + "' (known: " + known + ")");
}

HardwareInfo datasheet_hardware(const DatasheetDevice& d) {
  HardwareInfo h;
  h.source = "datasheet";
  h.machine.vendor = "NVIDIA";
  h.machine.model = d.name;
  auto add = [&h](const char* name, const char* isa, const char* dtype, double gops) {
    if (gops > 0) h.compute.push_back({name, isa, dtype, 1, gops});
  };
  add("fp32", "vector", "fp32", d.fp32);
  add("tf32_tensor", "tensor", "tf32", d.tf32);
  add("fp16_tensor", "tensor", "fp16", d.fp16);
  add("int8_tensor", "tensor", "int8", d.int8);
  h.memory.push_back({"DRAM", "datasheet", 1, d.memory_gbps, 0});
  h.notes.push_back("datasheet: " + d.source_title + " <" + d.source_url + ">");
  if (!d.note.empty()) h.notes.push_back(d.note);
  h.notes.push_back("one memory level: device memory (" + d.memory + "); the datasheet gives no cache bandwidths");
  return h;
}

}  // namespace rooflens::hw
