#pragma once

#include <string>

#include <boost/json/object.hpp>

#include "bench/cli_options.hpp"

namespace stepwise::bench {

/// The `tasks` workload: task steps done by workers over HTTP
/// (bench/README.md). Against a `stepwise serve` it starts (a fresh SQLite
/// store), or the one `--url` names (`--server-pid` for its threads and
/// memory): W1 with every step a task (`--n` operations of five task steps,
/// `--workers` connections polling and completing); how long a task waits
/// from ready to taken with idle pollers; and `--pollers` long polls held
/// at once, with the server's threads and memory before and while they
/// wait. One JSON line; returns 0, 1 when it could not run, 3 when an
/// operation did not succeed or a poll was refused.
int run_tasks(const cli_options& o);

/// The idle long polls part of it: opens `n` polls of queue `idle` (60 s)
/// on the server at `url` (process `pid`, 0: unknown), waits until the
/// server counts them, and returns what they cost it.
boost::json::object hold_pollers(const std::string& url, const std::string& token, int pid,
                                 size_t n);

} // namespace stepwise::bench
