// `import nsys` on a real Nsight Systems export (tests/fixtures/import/nsys/, see SOURCE.md there): every kernel
// and copy of the file is in the measurement, counted here with SQL of the test's own, and cross-checked against
// the JSON that nsightful exported from the same capture (an independent reader of the same report).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "assembly/assemble.h"
#include "core/errors.h"
#include "importers/registry/registry.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

using nlohmann::json;

const char* kNsysExport = "nsys/power_iteration.sqlite";

// Rows of `sql` over the fixture, each as text columns.
std::vector<std::vector<std::string>> nsys_query(const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(test::fixture_path(kNsysExport).c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<std::vector<std::string>> rows;
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const unsigned char* t = sqlite3_column_text(s, c);
      row.push_back(t ? reinterpret_cast<const char*>(t) : "");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

using NsysRead = test::ImportedRun;

NsysRead read_nsys(const importers::ImportOptions& options = {}) {
  return test::assembled(importers::find_importer("nsys").read({test::fixture(kNsysExport)}, options));
}

double nsys_total_ms(const KernelRecord& k) {
  double s = 0;
  for (double v : k.per_iteration_ms) s += v;
  return s;
}

TEST(ImportNsys, TheWholeCaptureHasEveryKernelAndCopy) {
  NsysRead r = read_nsys({{"iterations", "capture"}});
  const Measurement& m = r.in.measurement;
  ASSERT_EQ(m.profiled_runs_ms.size(), 1u);
  // Per distinct kernel (demangled name), its total over its launches, as SQL sums it.
  auto per_kernel = nsys_query("SELECT s.value, d.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                          "JOIN StringIds s ON s.id = k.shortName JOIN StringIds d ON d.id = k.demangledName "
                          "GROUP BY k.demangledName");
  auto copies = nsys_query("SELECT COUNT(*), SUM(end - start), SUM(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
  ASSERT_EQ(m.kernels.size(), per_kernel.size() + 1);  // + one record of the DtoH copies (the only direction here)
  size_t launches = 0;
  for (const auto& row : per_kernel) {
    launches += std::stoul(row[2]);
    auto it = std::find_if(m.kernels.begin(), m.kernels.end(), [&](const KernelRecord& k) { return k.implementation == row[1]; });
    ASSERT_NE(it, m.kernels.end()) << row[1];
    EXPECT_EQ(it->op, row[0]);
    EXPECT_NEAR(nsys_total_ms(*it), std::stod(row[3]) / 1e6, 1e-9) << row[0];
  }
  const KernelRecord& copy = m.kernels.back().kind == LayerKind::copy ? m.kernels.back()
                             : *std::find_if(m.kernels.begin(), m.kernels.end(), [](auto& k) { return k.kind == LayerKind::copy; });
  EXPECT_EQ(copy.name, "Memcpy DtoH");
  EXPECT_NEAR(nsys_total_ms(copy), std::stod(copies[0][1]) / 1e6, 1e-9);
  EXPECT_EQ(copy.bytes, std::stoull(copies[0][2]));  // one iteration: all of them
  size_t all = launches + std::stoul(copies[0][0]);
  EXPECT_NE(r.in.read.at(0).find(" " + std::to_string(all) + " GPU activities"), std::string::npos) << r.in.read.at(0);
  EXPECT_EQ(m.device_name, "Tesla T4");
  EXPECT_EQ(r.in.backend.version, "2025.3.1.90");
}

TEST(ImportNsys, KernelCountsAndTimesMatchNsightfulsJsonOfTheSameCapture) {
  json events = json::parse(test::fixture("nsys/power_iteration.json").text);
  std::map<std::string, std::pair<size_t, double>> by_name;  // short name -> launches, Σ µs
  for (const auto& e : events)
    if (e["cat"] == "cuda") by_name[e["name"].get<std::string>()].first++, by_name[e["name"]].second += e["dur"].get<double>();
  const Measurement m = read_nsys({{"iterations", "capture"}}).in.measurement;
  size_t kernel_records = 0;
  for (const auto& k : m.kernels) {
    if (k.kind == LayerKind::copy) continue;
    ++kernel_records;
    ASSERT_TRUE(by_name.count(k.op)) << k.op;
    EXPECT_NEAR(nsys_total_ms(k) * 1000.0, by_name[k.op].second, 1e-3) << k.op;  // the JSON has 3 decimals of µs
  }
  EXPECT_EQ(kernel_records, by_name.size());
  auto launches = nsys_query("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  size_t in_json = 0;
  for (auto& [name, v] : by_name) in_json += v.first;
  EXPECT_EQ(std::to_string(in_json), launches[0][0]);
}

TEST(ImportNsys, NvtxStepRangesAreTheIterations) {
  NsysRead r = read_nsys();
  const Measurement& m = r.in.measurement;
  // The program marks "Step 0 to 10", "Step 10 to 20", ... inside one "Loop" range: the steps are the iterations.
  auto steps = nsys_query("SELECT n.start, n.end FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                     "WHERE n.eventType = 59 AND s.value LIKE 'Step % to %' ORDER BY n.start");
  ASSERT_EQ(steps.size(), 3u);
  ASSERT_EQ(m.profiled_runs_ms.size(), 3u);
  // Each step's activities by their launch's start (the runtime call with the same correlation id), in SQL.
  std::vector<double> between;
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string in_step = " r.start BETWEEN " + steps[i][0] + " AND " + steps[i][1];
    auto row = nsys_query("SELECT COUNT(*), SUM(a.end - a.start), MIN(a.start), MAX(a.end) FROM (SELECT start, end, "
                     "correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, end, correlationId FROM "
                     "CUPTI_ACTIVITY_KIND_MEMCPY) a JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = a.correlationId "
                     "WHERE" + in_step);
    double sum = 0;
    for (const auto& k : m.kernels) sum += k.per_iteration_ms.at(i);
    EXPECT_NEAR(sum, std::stod(row[0][1]) / 1e6, 1e-9) << "step " << i;
    EXPECT_NEAR(m.latencies_ms.at(i), (std::stod(steps[i][1]) - std::stod(steps[i][0])) / 1e6, 1e-9);
    between.push_back((std::stod(row[0][3]) - std::stod(row[0][2]) - std::stod(row[0][1])) / 1e6);
  }
  std::sort(between.begin(), between.end());
  ASSERT_TRUE(r.run.between_kernels_ms.has_value());
  EXPECT_NEAR(*r.run.between_kernels_ms, between[1], 1e-6);  // one stream: the GPU's idle gaps, median of 3
  bool left_out = false;
  for (const auto& w : m.warnings) left_out |= w.find("outside the NVTX iteration ranges") != std::string::npos;
  EXPECT_TRUE(left_out);  // cupy_fill in "Setup", before the loop
}

TEST(ImportNsys, DamagedExportsNameTheRowOrTheVersion) {
  auto message = [](const std::string& rel) {
    try {
      importers::find_importer("nsys").read({test::fixture(rel)}, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("malformed/nsys/end_before_start.sqlite").find(": CUPTI_ACTIVITY_KIND_KERNEL (rowid 2).end: is before start"),
            std::string::npos)
      << message("malformed/nsys/end_before_start.sqlite");
  EXPECT_NE(message("malformed/nsys/schema_2.sqlite").find("export schema 2.7.1"), std::string::npos)
      << message("malformed/nsys/schema_2.sqlite");
  EXPECT_NE(message("malformed/nsys/name_not_in_stringids.sqlite").find("(rowid 2).shortName: names no StringIds row"),
            std::string::npos);
  EXPECT_NE(message("malformed/nsys/start_as_text.sqlite").find("(rowid 1).start: expected an integer"), std::string::npos);
}

TEST(ImportNsys, AutoDetectionSniffsTheSqliteHeaderAndNsysTables) {
  EXPECT_EQ(importers::detect_importer({test::fixture(kNsysExport)}).name(), "nsys");
  importers::InputFile other{"history.db", std::string("SQLite format 3\0", 16) + std::string(4000, '\0') + "CREATE TABLE runs"};
  EXPECT_THROW(importers::detect_importer({other}), UserError);
}

}  // namespace
}  // namespace rooflens
