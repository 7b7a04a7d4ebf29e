#pragma once
// The results database's schema, versioned: rooflens_schema holds one row per migration applied; the version is
// the highest. Opening a database brings it up to this build's version in one transaction (serialised between
// processes, so four rooflens starting at once on an empty database migrate it once). A database of a newer
// version is refused before anything is written. Tables and columns: docs/history.md.
#include "db/connection.h"

namespace rooflens::db {

inline constexpr int kSchemaVersion = 5;

// 0 for a database rooflens never wrote to.
int schema_version(Connection& c);

// Migrates to `target` (this build's version; tests pass an older one to make the database an older rooflens
// left). Throws DbTooNew (nothing changed) when the database is of a newer version than this build's, DbError
// otherwise.
void ensure_schema(Connection& c, int target = kSchemaVersion);

}  // namespace rooflens::db
