// SQLite over a buffer: the connection is an empty in-memory one that sqlite3_deserialize points at the file's
// bytes with SQLITE_DESERIALIZE_READONLY (so SQLite neither writes nor frees them); the bytes outlive it (they are
// the InputFile's, alive for the whole read).
#include "importers/nsys/nsys_db.h"

#include <sqlite3.h>

#include <cstring>

#include "core/errors.h"

namespace rooflens::importers::nsys {
namespace {

constexpr char kMagic[] = "SQLite format 3";  // the header's first 16 bytes, NUL included

int out_of_budget(void* left) {
  auto* n = static_cast<int64_t*>(left);
  return --*n < 0 ? 1 : 0;  // non-zero interrupts the statement (SQLITE_INTERRUPT)
}

}  // namespace

Db::Db(const InputFile& f) : path_(f.path) {
  if (f.text.size() < 100 || std::memcmp(f.text.data(), kMagic, sizeof kMagic) != 0)
    throw UserError(f.path + ": not an SQLite database (give the .sqlite that nsys export --type sqlite wrote)");
  // A budget in proportion to the file: a real export's queries take far less, a hostile schema cannot spin.
  budget_ = 100000 + static_cast<int64_t>(f.text.size() / 8);
  if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(db_);
    throw UserError(f.path + ": SQLite could not open a connection to read it");
  }
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  auto* bytes = reinterpret_cast<unsigned char*>(const_cast<char*>(f.text.data()));
  auto size = static_cast<sqlite3_int64>(f.text.size());
  if (sqlite3_deserialize(db_, "main", bytes, size, size, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
    std::string why = sqlite3_errmsg(db_);
    sqlite3_close(db_);
    throw UserError(f.path + ": not a readable SQLite database (" + why + ")");
  }
}

Db::~Db() { sqlite3_close(db_); }

bool Db::has_table(const std::string& table) const {
  bool found = false;
  each("sqlite_master", "SELECT rowid FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'",
       [&](const Row&) { found = true; });
  return found;
}

void Db::each(const std::string& table, const std::string& sql, const std::function<void(const Row&)>& row) const {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    std::string why = sqlite3_errmsg(db_);
    sqlite3_finalize(s);
    throw UserError(path_ + ": " + table + ": cannot be read (" + why + ")");
  }
  int64_t left = budget_;
  sqlite3_progress_handler(db_, 1000, out_of_budget, &left);
  Row r(s, path_, table);
  int rc;
  try {
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) row(r);
  } catch (...) {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    sqlite3_finalize(s);
    throw;
  }
  sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  std::string why = rc == SQLITE_DONE ? "" : rc == SQLITE_INTERRUPT ? "the query ran past its budget" : sqlite3_errmsg(db_);
  sqlite3_finalize(s);
  if (!why.empty()) throw UserError(path_ + ": " + table + ": cannot be read (" + why + ")");
}

int64_t Row::rowid() const { return sqlite3_column_int64(s_, 0); }

void Row::fail(const char* name, const std::string& what) const {
  throw UserError(path_ + ": " + table_ + " (rowid " + std::to_string(rowid()) + ")." + name + ": " + what);
}

std::optional<int64_t> Row::optional_count(int col, const char* name) const {
  int type = sqlite3_column_type(s_, col);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type != SQLITE_INTEGER) fail(name, "expected an integer");
  int64_t v = sqlite3_column_int64(s_, col);
  if (v < 0) fail(name, "expected a number >= 0, not " + std::to_string(v));
  return v;
}

int64_t Row::count(int col, const char* name) const {
  std::optional<int64_t> v = optional_count(col, name);
  if (!v) fail(name, "missing (NULL)");
  return *v;
}

std::optional<std::string> Row::text(int col) const {
  if (sqlite3_column_type(s_, col) == SQLITE_NULL) return std::nullopt;
  const unsigned char* t = sqlite3_column_text(s_, col);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s_, col))) : "";
}

}  // namespace rooflens::importers::nsys
