#pragma once

#include <string>

namespace stepwise::bench {

/// Returns `sqlite:/tmp/stepwise-bench-<pid>-<tag><run>.db` after removing
/// what an earlier run left there (the file, its WAL and shared memory):
/// every run starts on an empty store.
std::string fresh_sqlite_uri(const std::string& tag, int run);

} // namespace stepwise::bench
