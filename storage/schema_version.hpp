#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>

namespace stepwise {

/// Returns the refusal to open a database whose schema (`have`) is newer
/// than the newest this binary knows (`known`), naming both versions and
/// what to do. `where` names the database (a path, "pg"). Both stores use
/// it so that an operator reads one sentence whichever store refused.
caf::error newer_schema_error(const std::string& where, int64_t have, int64_t known);

} // namespace stepwise
