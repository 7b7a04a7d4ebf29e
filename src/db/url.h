#pragma once
// Which database a command writes to and reads from: `--db URL`, else $ROOFLENS_DB, else the embedded SQLite file
// under the user's data directory. URLs:
//   sqlite:PATH | sqlite://PATH | PATH          an SQLite file (created on first use, its directory too)
//   postgresql://[user[:password]@]host[:port]/dbname[?param=value&...]   (also postgres://): libpq's own URI
// A password may be given in the URL, in PGPASSWORD or in ~/.pgpass (libpq reads the last two itself). It never
// leaves this room in clear: every text shown to the user goes through redact_url() / scrub().
#include <string>

#include "core/errors.h"

namespace rooflens::db {

enum class DbKind { sqlite, postgresql };

struct DbUrl {
  DbKind kind = DbKind::sqlite;
  std::string target;   // sqlite: the file path; postgresql: the URL as given (handed to libpq)
  std::string shown;    // what messages may show: the path, or the URL with any password replaced by ***
  std::string password; // the URL's password ("" when none), only to scrub it from the client library's messages
};

// Throws UsageError for an empty URL or an unknown scheme ("mysql://...").
DbUrl parse_db_url(const std::string& url);

// $XDG_DATA_HOME/rooflens/results.db, else $HOME/.local/share/rooflens/results.db ("" when neither is set).
// Values passed in, not read here, so tests decide the environment.
std::string default_db_path(const char* xdg_data_home, const char* home);
// --db when given, else $ROOFLENS_DB, else default_db_path() from the environment. Throws UsageError when none
// can be found (no HOME).
std::string resolve_db_url(const std::string& flag);

// "postgresql://user:***@host/db": the password (and a password=... parameter) masked.
std::string redact_url(const std::string& url);
// `message` with every occurrence of `secret` (when not empty) and of PGPASSWORD's value replaced by ***, and
// newlines folded, so a message of libpq or SQLite can be shown on one line.
std::string scrub(std::string message, const std::string& secret);

// Every failure to reach, read or write a database. Its message is already scrubbed.
struct DbError : UserError {
  using UserError::UserError;
};

// The database was written by a newer rooflens (its schema version is above the one this build knows).
struct DbTooNew : DbError {
  using DbError::DbError;
};

}  // namespace rooflens::db
