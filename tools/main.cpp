// The `stepwise` binary: `serve` runs the server; the other commands are a
// small client of its HTTP API.

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/errc.hpp"
#include "tools/cli.hpp"
#include "tools/secrets_command.hpp"
#include "tools/serve.hpp"
#include "tools/serve_options.hpp"

int main(int argc, char** argv) {
  using namespace stepwise::tools;
  // A server may close a connection once it has answered (a refused body is
  // not read); over TLS the client's closing write would then raise SIGPIPE
  // and kill it before it prints the answer. httplib's server ignores
  // SIGPIPE, its client does not.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::printf("%s", client_help().c_str());
    return args.empty() ? 2 : 0;
  }
  auto cmd = args[0];
  args.erase(args.begin());
  if (cmd == "serve") {
    auto opts = parse_serve_options(args, process_env());
    if (!opts) {
      std::fprintf(stderr, "error: %s\n", stepwise::message_of(opts.error()).c_str());
      return 2;
    }
    if (opts->help) {
      std::printf("%s", serve_help().c_str());
      return 0;
    }
    return run_serve(*opts);
  }
  if (cmd == "ops")
    return run_ops(args);
  if (cmd == "events")
    return run_events(args);
  if (cmd == "workflows")
    return run_workflows(args);
  if (cmd == "sinks")
    return run_sinks(args);
  if (cmd == "secrets")
    return run_secrets(args);
  std::fprintf(stderr, "error: unknown command '%s'\n\n%s", cmd.c_str(), client_help().c_str());
  return 2;
}
