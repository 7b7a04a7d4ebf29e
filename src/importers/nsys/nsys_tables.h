#pragma once
// What the nsys importer reads from an export's tables, each row checked as it is read (importers/nsys/nsys_db.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "importers/nsys/nsys_db.h"

namespace rooflens::importers::nsys {

struct ExportInfo {
  std::string schema;   // EXPORT_SCHEMA_VERSION ("3.20.2")
  std::string product;  // EXPORT_PRODUCT_VERSION ("2025.3.1.90")
};

// The schema version; UserError naming what was found unless its major version is one rooflens reads.
ExportInfo export_info(const Db& db);

enum class ActivityKind { kernel, memcpy, memset };

struct Activity {                  // one row of the CUPTI activity tables
  ActivityKind kind = ActivityKind::kernel;
  int64_t start = 0, end = 0;      // ns, on the capture's clock
  int64_t device = 0, stream = 0;
  std::optional<int64_t> correlation, pid;  // to find its launch (CUPTI_ACTIVITY_KIND_RUNTIME)
  std::string name, demangled;     // kernels: shortName, demangledName; copies: "Memcpy HtoD"; "Memset"
  uint64_t bytes = 0;
};

// Kernels, memcpys and memsets (the tables nsys wrote: it omits those with no rows), by start.
std::vector<Activity> read_activities(const Db& db);

// When each launch started on the host: (process, correlationId) -> start ns, from CUPTI_ACTIVITY_KIND_RUNTIME.
std::map<std::pair<int64_t, int64_t>, int64_t> launch_times(const Db& db);
// The process part of a serialized global id (nsys packs pid into bits 24..47 of globalTid/globalPid).
inline int64_t process_of(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }

struct Range {                     // an NVTX push/pop or start/end range that ended
  std::string name;
  int64_t start = 0, end = 0;
};
std::vector<Range> nvtx_ranges(const Db& db);

// GPU names by CUDA device id (TARGET_INFO_GPU).
std::map<int64_t, std::string> gpu_names(const Db& db);

}  // namespace rooflens::importers::nsys
