#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/store.hpp"

// What the durability tests need to run child processes and read what they
// wrote.
namespace stepwise::test {

/// In a forked child: runs `args[0]` with `args` (no shell), or exits 127.
[[noreturn]] void exec_or_exit(const std::vector<std::string>& args);

/// Starts `args[0]` with `args` (no shell); returns its pid.
pid_t spawn(const std::vector<std::string>& args);

/// Waits for `pid` to end; returns its wait status.
int reap(pid_t pid);

/// Runs `command` through the shell; returns its stdout and stderr.
std::string run_captured(const std::string& command);

/// Returns the non-empty lines of the file at `path`.
std::vector<std::string> lines(const std::string& path);

/// One line of an EFFECTS file stamped with pid and time:
/// "<op> <step> <attempt> <pid> <wall-clock µs>".
struct effect_line {
  std::string op;
  std::string step;
  int attempt = 0;
  pid_t pid = 0;
  int64_t t_us = 0;
};

/// Returns the lines of the EFFECTS file at `path`.
std::vector<effect_line> read_effects(const std::string& path);

/// The value of the environment variable `name` (a child's path), or "".
std::string env_or_empty(const char* name);

/// STEPWISE_CRASH_CYCLES, or `fallback` when it is not set.
int crash_cycles(int fallback);

/// Runs the child `args` `runs` times, each killed with SIGKILL at a random
/// point: every other run only once it acknowledged something new (a line
/// of the file `acked`; start-up is slow under the sanitizers), so that
/// kills land while work is in flight, then 5 to 250 ms later. Returns
/// each run's wait status (a run that ended before its kill exited).
std::vector<int> kill_at_random(const std::vector<std::string>& args, const std::string& acked,
                                int runs);

/// Returns whether `status` is an exit with 0 (not a death by a signal,
/// whose WEXITSTATUS is 0 too).
bool exited_zero(int status);

/// Returns whether `status` is a death by a signal or an exit with 0.
bool killed_or_clean(int status);

/// The event log of a store after the children died.
struct event_log {
  std::vector<event> events;
  /// The first seq missing (a gap), or 0 when there is none.
  int64_t first_gap = 0;
  /// Per operation: how many terminal events it has.
  std::map<std::string, int> terminal;
  /// Why the log could not be read, or empty.
  std::string error;
};

/// Reads the whole event log of `st`.
event_log read_event_log(store& st);

/// The wall clock in microseconds since the epoch (children stamp their
/// effects with it).
int64_t wall_us();

} // namespace stepwise::test
