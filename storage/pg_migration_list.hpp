#pragma once

#include <vector>

namespace stepwise {

/// One step of the PostgreSQL schema (storage/pg_migrations.cpp runs them).
struct pg_migration {
  int version;
  const char* name;
  const char* sql;
};

/// Every migration, oldest first. Append-only: a released migration is
/// never edited, a change is a new entry.
const std::vector<pg_migration>& pg_migrations();

} // namespace stepwise
