#pragma once

#include <string>

#include <caf/expected.hpp>

#include "engine/store.hpp"

namespace stepwise {

/// Opens the store that `uri` names:
///
/// - `sqlite:PATH` or `sqlite:PATH?synchronous=NORMAL` (default `FULL`):
///   the embedded store in the file PATH, created if missing;
/// - `postgresql://...` or `postgres://...`: the PostgreSQL store (a libpq
///   connection URI; its tables live in the first schema of the
///   `search_path`, e.g. `?options=-csearch_path%3Dmyschema`).
///
/// Any other URI is an `errc::invalid_argument` error naming it.
[[nodiscard]] caf::expected<store_ptr> open_store(const std::string& uri);

/// Returns `uri` with any password (`user:pw@` or `password=`) replaced by
/// `***`: what may be printed or put into an error.
std::string redact_store_uri(const std::string& uri);

} // namespace stepwise
