#pragma once
// The one storage interface: a connection to a SQL database that runs parameterised statements. Two
// implementations — SQLite (sqlite_connection.cpp, libsqlite3) and PostgreSQL (postgres_connection.cpp, libpq) —
// and everything above them (schema, store, history) is written once against this. Statements are constant text
// with `?` placeholders; values only ever travel as bound parameters, never inside SQL text.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "db/url.h"

namespace rooflens::db {

using SqlValue = std::variant<std::nullptr_t, int64_t, double, std::string>;
// A result row: each column as text (SQLite's and libpq's text forms), nullopt for NULL. db/rows.h reads them.
using Row = std::vector<std::optional<std::string>>;

class Connection {
 public:
  virtual ~Connection() = default;
  virtual DbKind kind() const = 0;
  virtual const std::string& shown() const = 0;  // the redacted URL, for messages

  // One statement with `?` placeholders bound to `params` in order; the rows it returns (none for most writes).
  // Throws DbError (scrubbed) naming the database.
  virtual std::vector<Row> query(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  // Statements without parameters, separated by ';' (schema migrations only).
  virtual void exec_script(std::string_view sql) = 0;

  // A write transaction: SQLite takes the database's write lock at once (BEGIN IMMEDIATE), so two writers never
  // deadlock upgrading read locks; both wait for each other instead (busy timeout).
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;  // best effort; a lost connection has rolled back already

  // Inside a transaction: serialise schema changes between processes (PostgreSQL: a transaction-level advisory
  // lock; SQLite: the write lock begin() holds already).
  virtual void lock_schema() = 0;
  // Inside a transaction: serialise the writers that name the same `name` until commit (PostgreSQL: a
  // transaction-level advisory lock on the name's hash; SQLite: the write lock begin() holds already). Two tasks of
  // one fleet storing at once each see the other's rows before deciding what they supersede.
  virtual void lock_name(const std::string& name) = 0;
  virtual bool table_exists(const std::string& name) = 0;

  // Called once the schema is known to be one this build accepts, before the first write: SQLite switches the
  // file to write-ahead logging (a mode stored in the file, so never before that check: a refused database
  // stays untouched).
  virtual void ready_for_writes() {}

  // The dialect's spelling of an auto-numbered 64-bit primary key column.
  virtual std::string_view id_column() const = 0;
};

// Opens (SQLite: creates the file and its directory when missing) — throws DbError naming the database.
std::unique_ptr<Connection> open_sqlite(const DbUrl& url);
std::unique_ptr<Connection> open_postgres(const DbUrl& url);
std::unique_ptr<Connection> connect(const DbUrl& url);

// Rolls back unless committed: a write that throws halfway leaves nothing behind.
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) { c_.begin(); }
  ~Transaction() {
    if (!done_) c_.rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    c_.commit();
    done_ = true;
  }

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace rooflens::db
