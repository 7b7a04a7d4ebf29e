// The SQLite implementation of Connection (Debian's libsqlite3): one file, many processes. Writers take the write
// lock up front (BEGIN IMMEDIATE) and wait up to a minute for one another; the file is in WAL mode so readers
// (`rooflens history`) never block a writer. A process killed mid-transaction leaves its uncommitted pages in
// the write-ahead log, which SQLite discards on the next open: no partial session.
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>

#include "db/connection.h"

namespace rooflens::db {
namespace {

constexpr int kBusyTimeoutMs = 60000;

class SqliteConnection : public Connection {
 public:
  explicit SqliteConnection(const DbUrl& url) : shown_(url.shown) {
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(url.target).parent_path();
    if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
      std::filesystem::create_directories(parent, ec);
      if (ec) throw DbError("database " + shown_ + ": cannot create its directory: " + ec.message());
    }
    int rc = sqlite3_open_v2(url.target.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
      std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw DbError("database " + shown_ + ": cannot open it: " + msg);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    // Is this an SQLite file at all? The first read fails on anything else ("file is not a database").
    query("SELECT count(*) FROM sqlite_master", {});
  }
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  DbKind kind() const override { return DbKind::sqlite; }
  const std::string& shown() const override { return shown_; }

  std::vector<Row> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK)
      fail("cannot prepare a statement");
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, &sqlite3_finalize);
    if (static_cast<size_t>(sqlite3_bind_parameter_count(raw)) != params.size())
      throw DbError("database " + shown_ + ": internal error: a statement's parameters do not match its placeholders");
    for (size_t i = 0; i < params.size(); ++i) bind(raw, static_cast<int>(i + 1), params[i]);
    std::vector<Row> rows;
    for (;;) {
      int rc = sqlite3_step(raw);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail("statement failed");
      Row row(static_cast<size_t>(sqlite3_column_count(raw)));
      for (int c = 0; c < static_cast<int>(row.size()); ++c) {
        int type = sqlite3_column_type(raw, c);
        if (type == SQLITE_NULL) continue;
        if (type == SQLITE_FLOAT) {  // SQLite's own text form keeps 15 digits; 17 round-trip every double
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", sqlite3_column_double(raw, c));
          row[static_cast<size_t>(c)] = buf;
          continue;
        }
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(raw, c));
        row[static_cast<size_t>(c)] = std::string(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(raw, c)));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void exec_script(std::string_view sql) override {
    std::string text(sql);
    char* err = nullptr;
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw DbError("database " + shown_ + ": " + msg);
    }
  }

  void begin() override { exec_script("BEGIN IMMEDIATE"); }
  void commit() override { exec_script("COMMIT"); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void lock_schema() override {}
  void lock_name(const std::string&) override {}
  bool table_exists(const std::string& name) override {
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {name}).empty();
  }
  std::string_view id_column() const override { return "INTEGER PRIMARY KEY"; }

  // Write-ahead logging: readers never block the writer. Best effort — switching needs a moment without other
  // connections; the rollback journal that stays otherwise is just as safe, only less concurrent.
  void ready_for_writes() override {
    auto mode = query("PRAGMA journal_mode", {});
    if (!mode.empty() && mode[0][0] && *mode[0][0] == "wal") return;
    sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
  }

 private:
  void bind(sqlite3_stmt* s, int i, const SqlValue& v) {
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::nullptr_t>(v)) rc = sqlite3_bind_null(s, i);
    else if (auto* n = std::get_if<int64_t>(&v)) rc = sqlite3_bind_int64(s, i, *n);
    else if (auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(s, i, *d);
    else {
      const auto& t = std::get<std::string>(v);
      rc = sqlite3_bind_text64(s, i, t.data(), t.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    if (rc != SQLITE_OK) fail("cannot bind a value");
  }

  [[noreturn]] void fail(const std::string& what) {
    throw DbError("database " + shown_ + ": " + what + ": " + sqlite3_errmsg(db_));
  }

  sqlite3* db_ = nullptr;
  std::string shown_;
};

}  // namespace

std::unique_ptr<Connection> open_sqlite(const DbUrl& url) { return std::make_unique<SqliteConnection>(url); }

}  // namespace rooflens::db
