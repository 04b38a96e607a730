#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/expected.hpp>
#include <httplib.h>

#include "infra/driver.hpp"

namespace stepwise::http {

/// Where and how to reach an external driver that serves the Ignition
/// Infrastructure API.
struct client_driver_config {
  /// `http[s]://HOST[:PORT][/PREFIX]`; without a prefix the API is expected
  /// under `/api/infrastructure` (Ignition's default).
  std::string base_url;
  std::chrono::milliseconds connect_timeout{3000};
  /// How long one call waits for the answer: create and delete answer at
  /// once in Ignition, so this bounds a hung driver, not a slow cloud.
  std::chrono::milliseconds read_timeout{30000};
  /// Idle keep-alive connections kept for reuse.
  size_t max_idle = 8;
};

/// An `infra::driver` that forwards each call to an external driver over
/// HTTP (`POST {prefix}/create|delete|query|find`) and maps its answers back:
/// 400 to the error kind the call's documentation names (a message about the
/// location to `unreachable_location`), 503 and any failure to connect or to
/// get an answer in time to `temporary` (so a monitor polls again), anything
/// else to `infrastructure_error`. Error messages quote the driver's
/// `localizedMessage`, never the request.
///
/// Thread-safe: each call borrows a client from a mutex-guarded pool, so
/// concurrent calls use separate connections.
class client_driver : public infra::driver {
public:
  /// Checks the URL. Returns the driver or an `invalid_argument` error.
  [[nodiscard]] static caf::expected<std::shared_ptr<client_driver>>
  make(client_driver_config cfg);

  // -- infra::driver ----------------------------------------------------------

  infra::result<infra::accepted> create(const infra::create_request& req) override;

  infra::result<infra::task> get_task(const std::string& infrastructure_id,
                                      const std::string& request_id,
                                      const infra::deployment_location& loc) override;

  infra::result<infra::accepted> remove(const std::string& infrastructure_id,
                                        const infra::deployment_location& loc) override;

  infra::result<std::optional<infra::found>>
  find(const std::string& template_text, const std::string& template_type,
       const std::string& instance_name,
       const infra::deployment_location& loc) override;

  // -- introspection ----------------------------------------------------------

  /// Returns `scheme://host:port` of the driver.
  const std::string& origin() const {
    return origin_;
  }

  /// Returns the path prefix of the API (e.g. `/api/infrastructure`).
  const std::string& prefix() const {
    return prefix_;
  }

  /// What a call to the driver answered (status 0: no answer).
  struct exchange {
    int status = 0;
    std::string body;
    std::string failure;
  };

private:
  client_driver(client_driver_config cfg, std::string origin, std::string prefix);

  exchange post(const std::string& op, const boost::json::object& body);

  std::unique_ptr<httplib::Client> acquire();
  void release(std::unique_ptr<httplib::Client> c);

  client_driver_config cfg_;
  std::string origin_;
  std::string prefix_;
  std::mutex mtx_;
  std::vector<std::unique_ptr<httplib::Client>> idle_;
};

} // namespace stepwise::http
