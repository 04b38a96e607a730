#pragma once

#include <string>
#include <vector>

namespace stepwise::test {

/// In a forked child: runs `args` (no shell) in its place; exits 127 when
/// it cannot.
[[noreturn]] void exec_args(std::vector<std::string> args);

/// Runs `command` through the shell and returns what it printed on stdout
/// and stderr.
std::string run_command(const std::string& command);

} // namespace stepwise::test
