// The PostgreSQL implementation of Connection (Debian's libpq): the database a fleet of machines shares. The URL
// goes to libpq as it is (libpq's URI syntax and parameters: host, port, sslmode, a Unix socket directory as
// ?host=/path, ...); passwords come from the URL, PGPASSWORD or ~/.pgpass, and every message is scrubbed of them.
// A client killed mid-transaction drops its connection, and the server rolls the transaction back.
#include <libpq-fe.h>

#include <cstdio>
#include <string>

#include "core/sha256.h"
#include "db/connection.h"

namespace rooflens::db {
namespace {

// An arbitrary constant: the key of the advisory lock that serialises rooflens' schema migrations.
constexpr const char* kSchemaLockSql = "SELECT pg_advisory_xact_lock(726576617365)";

// The advisory lock key of a name: the first 8 bytes of its SHA-256, the same in every rooflens on every machine
// (std::hash is not). Prefixed so a name never lands on the schema lock's key by design.
int64_t lock_key(const std::string& name) {
  const std::string hex = sha256_hex("rooflens lock: " + name);
  return static_cast<int64_t>(std::stoull(hex.substr(0, 16), nullptr, 16));
}

// `?` placeholders (outside quotes) become $1, $2, ...: the statements above this room are written once.
std::string numbered(std::string_view sql) {
  std::string out;
  bool quoted = false;
  int n = 0;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

void ignore_notice(void*, const char*) {}  // "relation already exists, skipping" and the like

class PgConnection : public Connection {
 public:
  explicit PgConnection(const DbUrl& url) : shown_(url.shown), password_(url.password) {
    // connect_timeout first, so a value in the URL (expanded from dbname) overrides it.
    const char* keys[] = {"connect_timeout", "fallback_application_name", "dbname", nullptr};
    const char* values[] = {"10", "rooflens", url.target.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, 1);
    if (!conn_) throw DbError("database " + shown_ + ": out of memory connecting");
    if (PQstatus(conn_) != CONNECTION_OK) {
      std::string msg = scrub(PQerrorMessage(conn_), password_);
      PQfinish(conn_);
      conn_ = nullptr;
      throw DbError("database " + shown_ + ": cannot connect: " + msg);
    }
    PQsetNoticeProcessor(conn_, &ignore_notice, nullptr);
  }
  ~PgConnection() override {
    if (conn_) PQfinish(conn_);
  }

  DbKind kind() const override { return DbKind::postgresql; }
  const std::string& shown() const override { return shown_; }

  std::vector<Row> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    std::vector<std::string> text(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlValue& v = params[i];
      if (std::holds_alternative<std::nullptr_t>(v)) continue;
      if (auto* n = std::get_if<int64_t>(&v)) text[i] = std::to_string(*n);
      else if (auto* d = std::get_if<double>(&v)) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", *d);  // round-trips every double
        text[i] = buf;
      } else text[i] = std::get<std::string>(v);
      values[i] = text[i].c_str();
    }
    std::string stmt = numbered(sql);
    PGresult* raw = PQexecParams(conn_, stmt.c_str(), static_cast<int>(params.size()), nullptr, values.data(), nullptr,
                                 nullptr, 0);
    std::unique_ptr<PGresult, void (*)(PGresult*)> res(raw, &PQclear);
    ExecStatusType st = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(raw);
    std::vector<Row> rows;
    int nrows = PQntuples(raw), ncols = PQnfields(raw);
    for (int r = 0; r < nrows; ++r) {
      Row row(static_cast<size_t>(ncols));
      for (int c = 0; c < ncols; ++c)
        if (!PQgetisnull(raw, r, c))
          row[static_cast<size_t>(c)] = std::string(PQgetvalue(raw, r, c), static_cast<size_t>(PQgetlength(raw, r, c)));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void exec_script(std::string_view sql) override {
    std::string text(sql);
    std::unique_ptr<PGresult, void (*)(PGresult*)> res(PQexec(conn_, text.c_str()), &PQclear);
    ExecStatusType st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(res.get());
  }

  void begin() override { exec_script("BEGIN"); }
  void commit() override { exec_script("COMMIT"); }
  void rollback() noexcept override {
    if (conn_ && PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
  }
  void lock_schema() override { exec_script(kSchemaLockSql); }
  void lock_name(const std::string& name) override { query("SELECT pg_advisory_xact_lock(?)", {lock_key(name)}); }
  bool table_exists(const std::string& name) override {
    return !query("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?",
                  {name})
                .empty();
  }
  std::string_view id_column() const override { return "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"; }

 private:
  [[noreturn]] void fail(const PGresult* res) {
    std::string msg = res ? PQresultErrorMessage(res) : "";
    if (msg.empty()) msg = PQerrorMessage(conn_);
    throw DbError("database " + shown_ + ": " + scrub(msg, password_));
  }

  PGconn* conn_ = nullptr;
  std::string shown_, password_;
};

}  // namespace

std::unique_ptr<Connection> open_postgres(const DbUrl& url) { return std::make_unique<PgConnection>(url); }

}  // namespace rooflens::db
