#pragma once
// The datasheet roof table (data/datasheets.json, linked into the binary at build time): accelerators' peak rates
// and memory bandwidth as their vendors publish them, each with the document it comes from. `whatif --device`
// projects onto them and `hw --device` shows them; an importer of another runtime's profile can take its
// device's ceilings from here. Always labelled "datasheet", never "measured".
#include <string>
#include <vector>

#include "core/report_hardware.h"

namespace rooflens::hw {

struct DatasheetDevice {
  std::string id, name;                 // "a100-sxm4-80gb", "NVIDIA A100 SXM4 80GB"
  std::vector<std::string> aliases;     // other names --device accepts ("a100")
  // Dense peak rates in 1e9 operations/s (0 = the document gives none): fp32 on the vector units, tf32/fp16/int8
  // on the matrix units (fp16 with FP32 accumulate).
  double fp32 = 0, tf32 = 0, fp16 = 0, int8 = 0;
  double memory_gbps = 0;               // device memory bandwidth, 1e9 bytes/s
  std::string memory;                   // "HBM2e"
  std::string source_title, source_url; // the document the numbers come from
  std::string note;                     // how the numbers were read (sparse halved, derived ratios)
};

// The whole table, parsed once. Throws std::logic_error if the linked-in table is malformed (a build error).
const std::vector<DatasheetDevice>& datasheet_devices();

// By id, name or alias, case-insensitive; UserError listing the known devices otherwise.
const DatasheetDevice& find_datasheet_device(const std::string& name);

// The device as roofs: compute ceilings fp32/tf32/fp16/int8 (threads 1 = the whole device), one memory level
// ("DRAM", kernel "datasheet"), source "datasheet", notes citing the document.
HardwareInfo datasheet_hardware(const DatasheetDevice& d);

}  // namespace rooflens::hw
