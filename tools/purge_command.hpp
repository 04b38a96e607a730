#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli.hpp"

namespace stepwise::tools {

/// Adds `stepwise ops purge --ended-before TIME [--workflow W] [--dry-run]
/// [--batch N] [SERVE FLAGS]` to `ops`: removes ended operations with their
/// events straight in the store (engine/retention_store.hpp says which),
/// servers may run meanwhile. Its exit code: 0 done, 1 the store failed
/// (what was removed before stays removed), 2 usage error.
void add_purge(CLI::App& ops, cli_run& run);

} // namespace stepwise::tools
