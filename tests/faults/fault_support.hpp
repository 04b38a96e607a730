#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <httplib.h>

#include "tests/shell.hpp"

/// What the store fault tests share: a `stepwise serve` child whose stderr
/// goes to a file, clients that keep creating through faults, and checks of
/// the event log a run left.
namespace stepwise::test {

/// Prints one JSON line of a figure a test measured (not checked).
void print_figure(const boost::json::object& figure);

/// Returns the source tree (`STEPWISE_SOURCE_ROOT`), for tools/.
std::string source_root();

/// A running `stepwise serve --listen 127.0.0.1:0 ARGS...`, killed at
/// destruction.
class fault_server {
public:
  fault_server(const std::string& dir, std::vector<std::string> args);
  ~fault_server();

  fault_server(const fault_server&) = delete;
  fault_server& operator=(const fault_server&) = delete;

  int port() const {
    return port_;
  }

  /// Returns a new client (keep-alive; short connect, longer read timeout).
  std::unique_ptr<httplib::Client> client() const;

  /// Returns `/readyz`'s status (0: no answer) and its body.
  std::pair<int, std::string> readyz() const;

  /// Waits (bounded) until `/readyz` answers `status`; returns whether it did.
  bool await_readyz(int status, std::chrono::seconds bound) const;

  /// Returns what the server wrote on stderr so far.
  std::string log() const;

  /// Stops it with SIGTERM; returns the exit code (-1 when it had to be
  /// killed).
  int stop();

private:
  std::string log_path_;
  pid_t pid_ = -1;
  int port_ = 0;
};

/// Returns the lines of `log` that are not in the server's format
/// (`TIME LEVEL TEXT`).
std::vector<std::string> foreign_lines(const std::string& log);

/// Checks the end of a fault case: `log_problems` finds nothing for `ids`
/// in `log`, and the server wrote only lines in its format.
void check_run(const fault_server& srv, const std::vector<boost::json::object>& log,
               const std::vector<std::string>& ids);

/// Creates operations through faults: each is POSTed with its own
/// idempotency key and sent again (same key) after a 503 or a failed
/// connection until the server takes it, so that an acknowledged create is
/// never sent twice under two keys. Runs on its own threads.
class creator {
public:
  /// Creates `n` operations; the i-th runs `workflows[i % size]`.
  creator(const fault_server& srv, std::vector<std::string> workflows, size_t n,
          size_t threads = 4);
  ~creator();

  /// Returns how many creates were acknowledged so far.
  size_t acknowledged() const;

  /// Waits (bounded) for every create; returns the ids in key order, or
  /// fewer when the bound passed.
  std::vector<std::string> finish(std::chrono::seconds bound);

  /// Returns the 503 bodies seen (their messages).
  std::vector<std::string> refusals() const;

private:
  struct state;
  std::shared_ptr<state> st_;
};

/// Reads the whole event log through `GET /api/v1/events`.
std::vector<boost::json::object> read_log(const fault_server& srv);

/// Waits (bounded) until every operation of `ids` has a terminal event;
/// returns the log then (or as it was at the bound).
std::vector<boost::json::object> await_ended(const fault_server& srv,
                                             const std::vector<std::string>& ids,
                                             std::chrono::seconds bound);

/// Returns what is wrong with `log` for the operations `ids`: a gap or a
/// repeat of `seq`, an operation without exactly one created and one
/// succeeded event, a step that succeeded twice or started again after it
/// succeeded, an event of an unknown operation. Empty when nothing is.
std::vector<std::string> log_problems(const std::vector<boost::json::object>& log,
                                      const std::vector<std::string>& ids);

} // namespace stepwise::test
