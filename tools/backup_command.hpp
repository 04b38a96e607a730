#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli.hpp"

namespace stepwise::tools {

/// Adds `stepwise backup --to FILE [--force] [--pages-per-step N]
/// [SERVE FLAGS]`: a consistent copy of a SQLite store while servers run,
/// and of its key file. Its exit code: 0 written, 1 not (the store failed,
/// or it is PostgreSQL: the message gives the pg_dump command), 2 usage
/// error.
void add_backup(CLI::App& root, cli_run& run);

} // namespace stepwise::tools
