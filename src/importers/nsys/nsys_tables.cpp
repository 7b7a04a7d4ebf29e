// Table and column names are those of the export schema 3 (Nsight Systems' "SQLite Schema Reference"): kernel
// names live in StringIds, times are integer nanoseconds, NVTX names are inline text or a StringIds id.
#include "importers/nsys/nsys_tables.h"

#include <algorithm>

#include "core/errors.h"

namespace rooflens::importers::nsys {
namespace {

// The export schemas this importer was written against: the tables and columns it reads are those of major 3.
constexpr int kKnownMajor = 3;

std::string copy_name(int64_t kind) {
  static const char* names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
                                "Unified HtoD", "Unified DtoH", "Unified DtoD"};
  return kind >= 0 && kind < static_cast<int64_t>(std::size(names)) ? names[kind] : "kind " + std::to_string(kind);
}

// start, end (checked: end >= start), device, stream, correlation, process: columns 1-6 of every activity query.
Activity activity_of(const Row& r, ActivityKind kind) {
  Activity a;
  a.kind = kind;
  a.start = r.count(1, "start");
  a.end = r.count(2, "end");
  if (a.end < a.start) r.fail("end", "is before start");
  a.device = r.count(3, "deviceId");
  a.stream = r.count(4, "streamId");
  a.correlation = r.optional_count(5, "correlationId");
  if (std::optional<int64_t> g = r.optional_count(6, "globalPid")) a.pid = process_of(*g);
  return a;
}

const char* kActivityColumns = "rowid, start, end, deviceId, streamId, correlationId, globalPid";

}  // namespace

ExportInfo export_info(const Db& db) {
  ExportInfo info;
  for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (!db.has_table(table)) continue;
    db.each(table, std::string("SELECT rowid, name, value FROM ") + table, [&](const Row& r) {
      std::string name = r.text(1).value_or("");
      if (name == "EXPORT_SCHEMA_VERSION") info.schema = r.text(2).value_or("");
      if (name == "EXPORT_PRODUCT_VERSION") info.product = r.text(2).value_or("");
    });
    break;
  }
  if (info.schema.empty())
    throw UserError(db.path() + ": names no export schema version (no META_DATA_EXPORT.EXPORT_SCHEMA_VERSION): not "
                                "an Nsight Systems SQLite export, or one older than rooflens reads");
  int major = std::atoi(info.schema.c_str());
  if (major != kKnownMajor)
    throw UserError(db.path() + ": Nsight Systems export schema " + info.schema + ": rooflens reads schema " +
                    std::to_string(kKnownMajor) + ".x (export the .nsys-rep again with an nsys that writes it)");
  return info;
}

std::vector<Activity> read_activities(const Db& db) {
  std::vector<Activity> out;
  if (db.has_table("CUPTI_ACTIVITY_KIND_KERNEL"))
    db.each("CUPTI_ACTIVITY_KIND_KERNEL",
            std::string("SELECT k.") + kActivityColumns + ", k.shortName, s.value, k.demangledName, d.value "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k.shortName "
            "LEFT JOIN StringIds d ON d.id = k.demangledName",
            [&](const Row& r) {
              Activity a = activity_of(r, ActivityKind::kernel);
              r.count(7, "shortName");
              a.name = r.text(8).value_or("");
              if (!r.text(8)) r.fail("shortName", "names no StringIds row");
              a.demangled = r.text(10).value_or(a.name);
              out.push_back(std::move(a));
            });
  if (db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY"))
    db.each("CUPTI_ACTIVITY_KIND_MEMCPY",
            std::string("SELECT ") + kActivityColumns + ", bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
            [&](const Row& r) {
              Activity a = activity_of(r, ActivityKind::memcpy);
              a.bytes = static_cast<uint64_t>(r.count(7, "bytes"));
              a.name = "Memcpy " + copy_name(r.count(8, "copyKind"));
              out.push_back(std::move(a));
            });
  if (db.has_table("CUPTI_ACTIVITY_KIND_MEMSET"))
    db.each("CUPTI_ACTIVITY_KIND_MEMSET",
            std::string("SELECT ") + kActivityColumns + ", bytes FROM CUPTI_ACTIVITY_KIND_MEMSET", [&](const Row& r) {
              Activity a = activity_of(r, ActivityKind::memset);
              a.bytes = static_cast<uint64_t>(r.count(7, "bytes"));
              a.name = "Memset";
              out.push_back(std::move(a));
            });
  std::stable_sort(out.begin(), out.end(), [](const Activity& a, const Activity& b) { return a.start < b.start; });
  return out;
}

std::map<std::pair<int64_t, int64_t>, int64_t> launch_times(const Db& db) {
  std::map<std::pair<int64_t, int64_t>, int64_t> out;
  if (!db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) return out;
  db.each("CUPTI_ACTIVITY_KIND_RUNTIME", "SELECT rowid, start, correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME",
          [&](const Row& r) {
            std::optional<int64_t> corr = r.optional_count(2, "correlationId");
            std::optional<int64_t> tid = r.optional_count(3, "globalTid");
            if (corr) out.emplace(std::pair{tid ? process_of(*tid) : -1, *corr}, r.count(1, "start"));
          });
  return out;
}

std::vector<Range> nvtx_ranges(const Db& db) {
  std::vector<Range> out;
  if (!db.has_table("NVTX_EVENTS")) return out;
  // 59 and 60 are NvtxPushPopRange and NvtxStartEndRange in ENUM_NSYS_EVENT_TYPE; marks have no end.
  db.each("NVTX_EVENTS",
          "SELECT n.rowid, n.start, n.end, n.text, s.value FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
          "WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL",
          [&](const Row& r) {
            Range g;
            g.start = r.count(1, "start");
            g.end = r.count(2, "end");
            if (g.end < g.start) r.fail("end", "is before start");
            g.name = r.text(3) ? *r.text(3) : r.text(4).value_or("");
            out.push_back(std::move(g));
          });
  return out;
}

std::map<int64_t, std::string> gpu_names(const Db& db) {
  std::map<int64_t, std::string> out;
  if (!db.has_table("TARGET_INFO_GPU")) return out;
  db.each("TARGET_INFO_GPU", "SELECT rowid, cuDevice, name FROM TARGET_INFO_GPU", [&](const Row& r) {
    if (std::optional<int64_t> d = r.optional_count(1, "cuDevice"); d && r.text(2)) out.emplace(*d, *r.text(2));
  });
  return out;
}

}  // namespace rooflens::importers::nsys
