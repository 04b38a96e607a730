#pragma once

#include <string>
#include <vector>

namespace stepwise::tools {

/// Runs `stepwise secrets rotate ...`. Returns the exit code: 0 every
/// value is under the current key, 1 some are not (or the store failed),
/// 2 usage error.
int run_secrets(const std::vector<std::string>& args);

/// Returns the `--help` text of `stepwise secrets`.
std::string secrets_help();

} // namespace stepwise::tools
