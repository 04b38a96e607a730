// The `stepwise` command line: `serve` runs the server; the other commands
// are a client of its HTTP API (CLI11 parses them all).
#include "tools/cli.hpp"

#include <cstdio>

#include "engine/errc.hpp"
#include "tools/backup_command.hpp"
#include "tools/purge_command.hpp"
#include "tools/secrets_command.hpp"
#include "tools/host.hpp"

namespace stepwise::tools {

int run_command_line(int argc, char** argv) {
  cli_run run;
  CLI::App app{"stepwise: a durable workflow engine. `serve` runs the server; `secrets`,\n"
               "`backup` and `ops purge` work on its store; the other commands are a client of\n"
               "its HTTP API.",
               "stepwise"};
  app.require_subcommand(1);
  // The client flags may come after the subcommand too.
  app.fallthrough();
  auto& f = run.flags;
  app.add_option("--url", f.url, "server to talk to, http:// or https://")
    ->type_name("URL")
    ->envname("STEPWISE_URL")
    ->capture_default_str();
  app.add_option("--token", f.token, "bearer token of a server with --auth-tokens")
    ->envname("STEPWISE_TOKEN")
    ->type_name("T");
  app.add_option("--ca", f.ca_file, "https: the CA certificate that signs the server's")
    ->envname("STEPWISE_CA")
    ->type_name("FILE");
  app.add_flag("--insecure", f.insecure, "https: accept any certificate (self-signed tests only)");
  app.add_flag("--json", f.json, "print the API's JSON instead of tables");
  auto* serve = app.add_subcommand("serve", "run the server (stepwise serve --help: its flags)");
  // Everything after `serve` is the server's own command line, --help too.
  serve->prefix_command();
  serve->fallthrough(false);
  serve->set_help_flag();
  serve->callback([&run, serve] { run.exit = stepwise::serve(serve->remaining()); });
  add_ops(app, run);
  add_purge(*app.get_subcommand("ops"), run);
  add_schedules(app, run);
  add_events(app, run);
  add_workflows(app, run);
  add_sinks(app, run);
  add_cluster(app, run);
  add_tasks(app, run);
  add_secrets(app, run);
  add_backup(app, run);
  if (argc < 2) {
    std::printf("%s", app.help().c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::printf("%s", app.help("", CLI::AppFormatMode::All).c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s (see stepwise --help, or COMMAND --help)\n", e.what());
    return 2;
  }
  return run.exit;
}

} // namespace stepwise::tools
