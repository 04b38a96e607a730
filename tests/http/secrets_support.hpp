#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <httplib.h>

#include "tests/http/serve_child.hpp"
#include "tests/infra/ignition_stub.hpp"

/// What the secrets tests share: a `stepwise serve` child on an Ignition
/// driver stub, and byte searches in the files a database leaves.
namespace stepwise::test {

/// The stub's answer to every call while a task runs, and once it is done.
inline constexpr const char* task_running =
  R"({"infrastructureId":"inf-1","requestId":"req-1","status":"IN_PROGRESS"})";
inline constexpr const char* task_done =
  R"({"infrastructureId":"inf-1","requestId":"req-1","status":"COMPLETE","outputs":{}})";

/// A `provision_runtime` input whose deployment location holds `password`.
std::string provision_input(const std::string& name, const std::string& password);

/// A running `stepwise serve` with `--driver` on `stub` (plus `more`).
struct secrets_server {
  child proc;
  int port = 0;
  std::unique_ptr<httplib::Client> http;

  secrets_server(const ignition_stub& stub, std::vector<std::string> more);

  /// Starts `workflow` with `input` (JSON text); returns the id.
  std::string start(const std::string& workflow, const std::string& input);

  /// Returns the operation as the API shows it.
  boost::json::object get(const std::string& id);

  /// Waits (at most 60 s, by long polls of the event log) until `id` ended;
  /// returns it.
  boost::json::object finish(const std::string& id);

  /// Stops it with `sig` and waits for the exit; returns the exit code.
  int stop(int sig);

  /// Deprovisions what operation `provision_id` made; checks that it
  /// succeeded and that the driver's delete carried `password` (opened from
  /// the provisioning's stored input).
  void deprovision(const ignition_stub& stub, const std::string& provision_id,
                   const std::string& password);
};

/// Waits until each of `ids` ended on `srv` and checks that it succeeded,
/// and that the driver requests `stub` got from request `from` on carried
/// `password` (one at least): what operations resumed after a restore or
/// restart must show.
void check_resumed(secrets_server& srv, const ignition_stub& stub,
                   const std::vector<std::string>& ids, size_t from, const std::string& password);

/// Runs `command` through the shell; returns what it wrote on stdout and
/// stderr, then a line `exit=CODE`.
std::string run_status(const std::string& command);

/// Waits (bounded) until the stub got `n` requests in all.
bool await_requests(const ignition_stub& stub, size_t n);

/// Returns the deployment location passwords the stub was sent from
/// request `from` on, one per request that carried one.
std::vector<std::string> passwords_sent(const ignition_stub& stub, size_t from = 0);

/// Returns how often `needle` occurs in the bytes of file `path` (0 when
/// there is no such file).
size_t occurrences(const std::string& path, const std::string& needle);

/// Writes `text` to `path` with mode 0600.
void write_private(const std::string& path, const std::string& text);

/// Returns a key file line `ID BASE64` with a new key.
std::string new_key_line(const std::string& id);

} // namespace stepwise::test
