#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace stepwise::test {

/// A child process the test talks to by lines: its stdin and stdout are
/// pipes (stderr is the test's). Speaks tests/durability/command_loop.hpp:
/// answers are the lines starting with "> ".
class piped_child {
public:
  /// Starts `args[0]` with `args` (no shell).
  explicit piped_child(const std::vector<std::string>& args);

  /// Kills the child (SIGKILL) if it still runs.
  ~piped_child();

  piped_child(const piped_child&) = delete;
  piped_child& operator=(const piped_child&) = delete;

  pid_t pid() const {
    return pid_;
  }

  /// Writes `line` to the child's stdin without waiting for its answer.
  void tell(const std::string& line);

  /// Returns the next answer, without "> ", or "" when none comes within
  /// `limit` (the child died, or hangs).
  std::string answer(std::chrono::seconds limit = std::chrono::seconds(90));

  /// `tell` then `answer`.
  std::string ask(const std::string& line, std::chrono::seconds limit = std::chrono::seconds(90));

  /// Kills the child with SIGKILL; returns its wait status.
  int kill();

  /// Closes its stdin and waits for its exit; returns the wait status.
  int wait();

private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::string buffered_;
};

} // namespace stepwise::test
