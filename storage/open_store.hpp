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
///   `search_path`, e.g. `?options=-csearch_path%3Dmyschema`), once the
///   program called `use_postgresql()` (storage/postgresql.hpp, in the
///   `stepwise-postgresql` library): a host that does not link it links
///   no libpq.
///
/// Any other URI is an `errc::invalid_argument` error naming it.
[[nodiscard]] caf::expected<store_ptr> open_store(const std::string& uri);

/// Opens a store of one kind from its URI.
using store_opener = caf::expected<store_ptr> (*)(const std::string& uri);

/// Lets `open_store` open the URIs that start with `prefix` with `open`
/// (how a back-end library plugs in). Thread-safe; a prefix added again
/// keeps its first opener.
void add_store_scheme(const std::string& prefix, store_opener open);

/// Returns `uri` with any password (`user:pw@` or `password=`) replaced by
/// `***`: what may be printed or put into an error.
std::string redact_store_uri(const std::string& uri);

} // namespace stepwise
