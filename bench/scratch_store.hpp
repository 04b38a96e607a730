#pragma once

#include <string>

namespace stepwise::bench {

/// Returns `sqlite:/tmp/stepwise-bench-<pid>-<tag><run>.db` after removing
/// what an earlier run left there (the file, its WAL and shared memory):
/// every run starts on an empty store.
std::string fresh_sqlite_uri(const std::string& tag, int run);

/// Removes the files of a store `fresh_sqlite_uri` returned (a run's
/// scratch store is tens of MiB); other URIs are left alone. The store may
/// still be open: the space comes back when it closes.
void remove_scratch(const std::string& uri);

} // namespace stepwise::bench
