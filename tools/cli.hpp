#pragma once

#include <string>
#include <vector>

namespace stepwise::tools {

/// Runs `stepwise ops list|show|start|cancel|retry ...`. Returns the exit
/// code: 0 done, 1 the server answered an error or could not be reached,
/// 2 usage error.
int run_ops(const std::vector<std::string>& args);

/// Runs `stepwise events [--after N] [--follow] [--json]`.
int run_events(const std::vector<std::string>& args);

/// Runs `stepwise workflows [NAME]`.
int run_workflows(const std::vector<std::string>& args);

/// Runs `stepwise sinks [--json]`: the outbox's sinks (tools/sinks_command.cpp).
int run_sinks(const std::vector<std::string>& args);

/// Returns the `--help` text of the client commands.
std::string client_help();

/// The options every client command shares, taken out of `args`.
struct client_flags {
  std::string url;
  bool json = false;
};

/// Removes `--url URL` and `--json` from `args` (URL default: STEPWISE_URL,
/// then http://127.0.0.1:8080).
client_flags take_client_flags(std::vector<std::string>& args);

/// Removes `--name VALUE` (or `--name=VALUE`) from `args` and returns the
/// value, or `fallback` when absent. Sets `missing` when the value is.
std::string take_flag(std::vector<std::string>& args, const std::string& name,
                      const std::string& fallback, bool& missing);

} // namespace stepwise::tools
