#pragma once

#include <optional>
#include <string>
#include <vector>

namespace stepwise::bench {

/// A process the bench started (the driver process, a `stepwise serve`):
/// its output goes to `log`, so that a failed start can be read there.
struct child_process {
  int pid = -1;
  std::string log;
};

/// Starts `argv` (argv[0] a path) with stdout and stderr appended to `log`.
/// Returns the child, or nothing with the reason in `err`.
std::optional<child_process> start_child(const std::vector<std::string>& argv,
                                         const std::string& log, std::string& err);

/// Asks the child to stop (SIGTERM), waits up to `grace_s` seconds, then
/// kills it (SIGKILL). Returns false when it had to be killed.
bool stop_child(child_process& c, double grace_s = 10);

/// Returns whether the child has exited (and reaps it).
bool child_exited(child_process& c);

/// Returns a TCP port on 127.0.0.1 that was free a moment ago (0: none).
int free_port();

/// Waits up to `limit_s` seconds until `GET url + path` answers 200.
/// Gives up early when `c` (if given) exits.
bool wait_ready(const std::string& url, const std::string& path, double limit_s,
                child_process* c = nullptr);

/// Returns the path of this executable (`/proc/self/exe`).
std::string self_exe();

} // namespace stepwise::bench
