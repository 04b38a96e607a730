#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

/// What tests do outside their own process: run commands, start and reap
/// children, keep scratch files.
namespace stepwise::test {

/// A directory under /tmp, removed with everything in it at destruction.
struct temp_dir {
  std::string path;
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

/// Waits (bounded, polling) for child `pid` to exit; returns its exit code
/// (-1: killed by a signal, or still running at the bound) and sets `pid`
/// to -1 once reaped.
int reap(pid_t& pid, std::chrono::seconds bound);

/// Kills child `pid` (SIGKILL) and reaps it, unless already reaped.
void kill_and_reap(pid_t& pid);

/// In a forked child: runs `args` (no shell) in its place; exits 127 when
/// it cannot.
[[noreturn]] void exec_args(std::vector<std::string> args);

/// Runs `command` through the shell and returns what it printed on stdout
/// and stderr.
std::string run_command(const std::string& command);

} // namespace stepwise::test
