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
  /// Bearer token (`--token`, `STEPWISE_TOKEN`); empty: none.
  std::string token;
  /// https: the CA file that signs the server's certificate (`--ca`,
  /// `STEPWISE_CA`); empty: the system's.
  std::string ca_file;
  /// https: accept any certificate (`--insecure`), for self-signed tests.
  bool insecure = false;
};

/// Removes `--url URL`, `--token T`, `--ca FILE`, `--insecure` and `--json`
/// from `args` (defaults: STEPWISE_URL, then http://127.0.0.1:8080;
/// STEPWISE_TOKEN; STEPWISE_CA).
client_flags take_client_flags(std::vector<std::string>& args);

/// Removes `--name VALUE` (or `--name=VALUE`) from `args` and returns the
/// value, or `fallback` when absent. Sets `missing` when the value is.
std::string take_flag(std::vector<std::string>& args, const std::string& name,
                      const std::string& fallback, bool& missing);

} // namespace stepwise::tools
