#pragma once
// The CSV files of a results directory, one registry entry per file: its name, its columns, and the rows one
// finished entry contributes (none, one, or one per execution provider). Rows are appended as entries finish.
#include <string>
#include <vector>

#include "core/bench_results.h"

namespace rooflens::bench {

struct CsvFile {
  const char* name;                                                     // "status.csv"
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> (*rows)(const BenchEntry& e);  // rows this entry adds
};

// status.csv, failures.csv, latency.csv, metrics.csv (system.csv is written once, see system_csv).
const std::vector<CsvFile>& entry_csv_files();

// system.csv: key,value rows describing the machine, the runtime of each configuration and the run itself.
std::string system_csv(const BenchResults& header);

bool is_failure(const std::string& status);  // fail | timeout | crash

}  // namespace rooflens::bench
