// The `stepwise` binary: `serve` runs the server; the other commands are a
// small client of its HTTP API (tools/cli.cpp).

#include <csignal>

#include "storage/postgresql.hpp"
#include "tools/cli.hpp"

int main(int argc, char** argv) {
  // A server may close a connection once it has answered (a refused body is
  // not read); over TLS the client's closing write would then raise SIGPIPE
  // and kill it before it prints the answer. httplib's server ignores
  // SIGPIPE, its client does not.
  std::signal(SIGPIPE, SIG_IGN);
  // backup, purge and the secrets commands open stores of either kind.
  stepwise::use_postgresql();
  return stepwise::tools::run_command_line(argc, argv);
}
