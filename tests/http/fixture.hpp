#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <httplib.h>

#include "engine/engine.hpp"
#include "infra/driver.hpp"
#include "http/server.hpp"
#include "tests/shell.hpp"

namespace stepwise::test {

/// The path of the operations collection.
inline const std::string ops = "/api/v1/operations";

/// Lets the `flip` workflow's step succeed (it fails while false).
extern std::atomic<bool> flip_allowed;

/// The workflows of the HTTP tests: `quick` (one step), `flip` (fails until
/// `flip_allowed`), `sleepy` (a step, then a one-hour sleep), `secretive`
/// (`/password` is secret), `billed` (the task `charge` on queue `billing`,
/// then a step) and `demo`.
registry test_registry();

/// One answer, with its body parsed when it is JSON.
struct reply {
  int status = 0;
  std::string body;
  boost::json::value json;
  httplib::Headers headers;

  std::string header(const std::string& name) const;

  /// Returns `json.error.code`, or "" when the body is no error.
  std::string error_code() const;
};

/// Returns `r` as a reply (status 0 when the request failed).
reply to_reply(const httplib::Result& r);

/// Messages that several threads add.
class message_log {
public:
  void add(std::string msg);
  std::vector<std::string> all() const;

private:
  mutable std::mutex mtx_;
  std::vector<std::string> items_;
};

/// An engine on a temporary SQLite file and the HTTP gateway in front of it
/// on a free port of 127.0.0.1. With a driver, the gateway also serves
/// `/api/infrastructure/*` on it and the registry has a stand-in
/// `infrastructure_task` workflow.
struct http_fixture {
  /// Builds the registry in the fixture's actor system (for workflows with
  /// actors of their own); `test_registry()` when empty.
  using registry_maker = std::function<registry(caf::actor_system&)>;

  temp_dir dir;
  /// Read by every `start`: set it, then `stop` and `start` to restart
  /// the process with other definitions.
  registry_maker make_registry;
  http::server_config scfg;
  std::shared_ptr<infra::driver> driver;
  std::unique_ptr<caf::actor_system_config> sys_cfg;
  std::unique_ptr<caf::actor_system> sys;
  engine eng;
  std::unique_ptr<http::server> srv;
  /// What the infrastructure routes warned about (tasks left unmonitored).
  std::shared_ptr<message_log> warnings = std::make_shared<message_log>();

  /// Changes the engine's settings before each `start` (a virtual clock,
  /// retention).
  std::function<void(engine_config&)> tune_engine;

  /// Mounts more routes on the server before it binds (the service broker).
  std::function<void(http::server&, engine&)> mount;

  explicit http_fixture(http::server_config cfg = default_config(),
                        std::shared_ptr<infra::driver> drv = nullptr,
                        std::function<void(http::server&, engine&)> mount_more = {});

  /// With the workflows `make` builds (instead of `test_registry()`).
  http_fixture(http::server_config cfg, std::shared_ptr<infra::driver> drv, registry_maker make);
  ~http_fixture();

  static http::server_config default_config();

  /// Starts engine and server (again, after `stop`) on the same store.
  void start();

  /// Stops the server, then the engine and the actor system.
  void stop();

  int port() const {
    return srv->port();
  }

  /// Returns a client of the server (keep-alive, 30 s read timeout).
  std::unique_ptr<httplib::Client> client() const;

  reply get(const std::string& target) const;

  reply post(const std::string& target, const std::string& body,
             const std::string& content_type = "application/json") const;

  reply put(const std::string& target, const std::string& body,
            const std::string& content_type = "application/json") const;

  reply del(const std::string& target) const;

  /// Starts an operation through the API; fails the test unless 201.
  std::string start_op(const std::string& workflow, const std::string& input = "{}") const;

  /// Waits (bounded) until the operation is terminal; returns its state.
  std::string finish(const std::string& id);

  /// Waits (bounded, by long polls) for an event of `type` of `id`.
  bool await_event(const std::string& id, const std::string& type) const;

  /// Returns the number of operations in the store.
  size_t count_ops() const;

  /// Returns the seq of every event after `after`, read by the long-poll
  /// route.
  std::vector<int64_t> log_seqs(int64_t after = 0) const;
};

/// Waits until `fd` has data or `deadline` passes and appends what it read
/// to `out`. Returns false at the deadline, at the end of the stream or on
/// an error: callers loop on it until they have what they wait for.
bool read_some(int fd, std::string& out, std::chrono::steady_clock::time_point deadline);

/// Sends `text` on a new TCP connection to 127.0.0.1:`port` and returns
/// what the server sends until it closes or `timeout` passes.
std::string raw_exchange(int port, const std::string& text,
                         std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));

/// Returns the status code of the first response in raw HTTP `text` (0
/// when there is none).
int raw_status(const std::string& text);

} // namespace stepwise::test
