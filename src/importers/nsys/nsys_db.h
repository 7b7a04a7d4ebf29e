#pragma once
// An Nsight Systems SQLite export opened from the bytes the import command read (sqlite3_deserialize, read-only:
// nothing touches the user's file, and a fuzzer feeds bytes without a file). The file comes from outside: SQLite
// runs in defensive mode with untrusted schema, every query has an instruction budget, only real tables are read
// (a view under a table's name is refused), and every value is checked as it is read.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "importers/importer.h"

struct sqlite3;
struct sqlite3_stmt;

namespace rooflens::importers::nsys {

class Row;

class Db {
 public:
  explicit Db(const InputFile& f);  // UserError "<path>: not an SQLite database" and the like
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  bool has_table(const std::string& table) const;
  // Runs `sql` (which reads `table`), giving each row to `row`; an SQLite error or a query over its budget is a
  // UserError naming the file and the table.
  void each(const std::string& table, const std::string& sql, const std::function<void(const Row&)>& row) const;
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  int64_t budget_ = 0;  // progress-handler calls (1,000 VM steps each) one query may take
};

// One row of a query; columns by position. Errors name "<path>: TABLE (rowid N).COLUMN: ...": the query's first
// column must be the rowid.
class Row {
 public:
  Row(sqlite3_stmt* s, const std::string& path, const std::string& table) : s_(s), path_(path), table_(table) {}
  int64_t rowid() const;
  int64_t count(int col, const char* name) const;                   // an integer >= 0 (UserError otherwise)
  std::optional<int64_t> optional_count(int col, const char* name) const;  // NULL -> nullopt
  std::optional<std::string> text(int col) const;                   // NULL -> nullopt
  [[noreturn]] void fail(const char* name, const std::string& what) const;

 private:
  sqlite3_stmt* s_;
  const std::string& path_;
  const std::string& table_;
};

}  // namespace rooflens::importers::nsys
