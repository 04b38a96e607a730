#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli.hpp"

namespace stepwise::tools {

/// Adds `stepwise secrets rotate [--batch N] [SERVE FLAGS]`: seals every
/// stored secret value again with the current key. Its exit code: 0 every
/// value is under the current key, 1 some are not (or the store failed),
/// 2 usage error.
void add_secrets(CLI::App& root, cli_run& run);

} // namespace stepwise::tools
