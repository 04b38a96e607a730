#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/expected.hpp>

#include "infra/driver.hpp"
#include "net/http_client.hpp"

namespace stepwise::infra {

/// Where and how to reach an external driver that serves the Ignition
/// Infrastructure API.
struct ignition_driver_config {
  /// `http[s]://HOST[:PORT][/PREFIX]`; without a prefix the API is expected
  /// under `/api/infrastructure` (Ignition's default).
  std::string base_url;
  std::chrono::milliseconds connect_timeout{3000};
  /// How long one call may take, waiting for a free connection included:
  /// create and delete answer at once in Ignition, so this bounds a hung
  /// driver, not a slow cloud.
  std::chrono::milliseconds call_timeout{30000};
  /// Most connections to the driver at once; calls beyond it queue (in
  /// memory, holding no thread) until one is free.
  int32_t max_connections = 128;
  /// `https://` drivers: a CA file to trust (a self-signed driver), or no
  /// verification at all.
  std::string ca_file;
  bool verify_tls = true;
};

/// An `infra::driver` that forwards each call to an external driver over
/// HTTP (`POST {prefix}/create|delete|query|find`) on one asynchronous
/// client (libcurl's multi interface, one I/O thread): thousands of calls
/// may be in flight, over at most `max_connections` reused connections.
/// Answers map back to error kinds: 400 to the kind the call's
/// documentation names (a message about the location to
/// `unreachable_location`), 503, a refused connection, a timeout or no
/// answer to `temporary` (so a monitor polls again), anything else to
/// `infrastructure_error`. Error messages quote the driver's
/// `localizedMessage`, never the request.
class ignition_driver : public driver {
public:
  /// Checks the URL. Returns the driver or an `invalid_argument` error
  /// (which never quotes the URL: it may carry credentials).
  [[nodiscard]] static caf::expected<std::shared_ptr<ignition_driver>> make(
    ignition_driver_config cfg);

  // -- driver methods ---------------------------------------------------------

  void create(const create_request& req, callback<accepted> done, const stop_token& stop) override;

  void get_task(const std::string& infrastructure_id, const std::string& request_id,
                const deployment_location& loc, callback<task> done) override;

  void remove(const std::string& infrastructure_id, const deployment_location& loc,
              callback<accepted> done, const stop_token& stop) override;

  void find(const std::string& template_text, const std::string& template_type,
            const std::string& instance_name, const deployment_location& loc,
            callback<std::optional<found>> done) override;

  // -- introspection ----------------------------------------------------------

  /// Returns `scheme://host:port` of the driver.
  const std::string& origin() const {
    return origin_;
  }

  /// Returns the path prefix of the API (e.g. `/api/infrastructure`).
  const std::string& prefix() const {
    return prefix_;
  }

  /// Returns the client's counters (calls queued, in flight, done).
  net::http_client_stats stats() const {
    return client_->stats();
  }

private:
  ignition_driver(const ignition_driver_config& cfg, std::string origin, std::string prefix);

  /// Posts `body` to `{prefix}/{path}` and hands the answer to `done`.
  /// Posts `body` to `path`; a requested `stop` cancels the request.
  void post(const char* path, const boost::json::object& body, net::http_callback done,
            const stop_token& stop = {});

  std::string origin_;
  std::string prefix_;
  std::chrono::milliseconds call_timeout_;
  /// Shared with the stop callbacks of calls, which may outlive the driver.
  std::shared_ptr<net::http_client> client_;
};

} // namespace stepwise::infra
