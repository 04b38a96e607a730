#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace stepwise::tools {

/// The options every client command shares (the root command's, so that
/// they may come before or after the subcommand).
struct client_flags {
  /// The server (`--url`, `STEPWISE_URL`).
  std::string url = "http://127.0.0.1:8080";
  /// Print the API's JSON instead of tables (`--json`).
  bool json = false;
  /// Bearer token (`--token`, `STEPWISE_TOKEN`); empty: none.
  std::string token;
  /// https: the CA file that signs the server's certificate (`--ca`,
  /// `STEPWISE_CA`); empty: the system's.
  std::string ca_file;
  /// https: accept any certificate (`--insecure`), for self-signed tests.
  bool insecure = false;
};

/// What a run of the command line decided: the shared flags, and the exit
/// code the chosen command set (0 done, 1 the server answered an error or
/// could not be reached, 2 a usage error).
struct cli_run {
  client_flags flags;
  int exit = 0;
};

/// Adds `stepwise ops list|show|start|cancel|retry|pause|resume|signal`
/// (ops_command.cpp).
void add_ops(CLI::App& root, cli_run& run);

/// Adds `stepwise events [--after N] [--limit N] [--follow]` and
/// `stepwise workflows [NAME]`, `workflows apply -f FILE`, `workflows delete NAME`
/// (workflows_command.cpp).
void add_events(CLI::App& root, cli_run& run);
void add_workflows(CLI::App& root, cli_run& run);

/// Adds `stepwise schedules list|show|create|edit|pause|resume|trigger|delete`
/// (schedules_command.cpp).
void add_schedules(CLI::App& root, cli_run& run);

/// Adds `stepwise sinks`: the outbox's sinks (sinks_command.cpp).
void add_sinks(CLI::App& root, cli_run& run);

/// Adds `stepwise cluster`: the servers sharing the store
/// (cluster_command.cpp).
void add_cluster(CLI::App& root, cli_run& run);

/// Adds `stepwise tasks poll|heartbeat|complete|fail|queues`
/// (tasks_command.cpp).
void add_tasks(CLI::App& root, cli_run& run);

/// Runs the `stepwise` command line; returns the exit code (cli.cpp).
int run_command_line(int argc, char** argv);

} // namespace stepwise::tools
