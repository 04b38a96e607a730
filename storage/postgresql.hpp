#pragma once

namespace stepwise {

/// Lets `open_store` and `open_engine` open `postgresql://` and
/// `postgres://` URIs (storage/open_store.hpp). Call it once before the
/// first store is opened; calling it again does nothing. It is the
/// `stepwise-postgresql` library's (`pkg-config stepwise-postgresql`):
/// a host that needs only SQLite leaves both out, and links no libpq.
void use_postgresql();

} // namespace stepwise
