#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/shell.hpp"

namespace stepwise::test {

/// Returns the path of the `stepwise` binary under test (`STEPWISE_BIN`).
std::string stepwise_binary();

/// A child process (no shell) with its stderr on a pipe, killed at
/// destruction if still running.
struct child {
  pid_t pid = -1;
  int err_fd = -1;
  /// What it wrote to stderr so far.
  std::string err;

  explicit child(std::vector<std::string> args);
  ~child();

  child(const child&) = delete;
  child& operator=(const child&) = delete;

  /// Reads stderr until it says "listening on http[s]://127.0.0.1:PORT "
  /// (bounded); returns PORT, or 0.
  int await_port(std::chrono::seconds bound);

  /// Reads stderr until it contains `text` (bounded); returns whether it did.
  bool await_output(const std::string& text, std::chrono::seconds bound);

  /// Waits (bounded) for the exit; returns the exit code or -1.
  int wait_exit(std::chrono::seconds bound);
};

/// Runs the `stepwise` binary with `args` (through the shell) and returns
/// what it printed on stdout and stderr.
std::string run_cli(const std::string& args);

} // namespace stepwise::test
