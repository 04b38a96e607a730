#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/engine.hpp"
#include "infra/driver.hpp"
#include "http/auth.hpp"
#include "http/router.hpp"

namespace stepwise::http {

/// The workflow started for every accepted create or delete: it polls the
/// driver until the task is COMPLETE or FAILED. Its input is
/// `{infrastructure_id, request_id, deployment_location: {name, type,
/// properties}, kind: "create"|"delete"}`; it must declare
/// `/deployment_location/properties` secret.
inline constexpr const char* infrastructure_task_workflow = "infrastructure_task";

/// Returns the idempotency key of the monitor of `request_id`: one monitor
/// per driver request, however often the request is answered.
std::string infrastructure_task_key(const std::string& request_id);

/// What the Infrastructure API routes need.
struct infrastructure_context {
  /// Starts the monitors (a handle: cheap to copy).
  stepwise::engine eng;
  /// Serves create, delete, query and find. The HTTP worker that serves
  /// the request waits for the driver's answer (never a CAF thread), at
  /// most `driver_timeout` (then 503).
  std::shared_ptr<infra::driver> driver;
  duration driver_timeout = std::chrono::seconds(35);
  size_t max_json_depth = 32;
  /// Told (may be empty) when the driver accepted a task whose monitor could
  /// not be started: an operator must know. Never given secrets.
  std::function<void(const std::string&)> warn;
  /// The server's bearer tokens (null: none): a monitor's start names its
  /// caller (`event::by`).
  std::shared_ptr<const authenticator> auth{};
};

/// Mounts `POST /api/infrastructure/create|delete|query|find` as the Ignition
/// Infrastructure API (vim_infrastructure.yaml, Ignition 1.1.0) describes
/// them, and makes every error under `/api/infrastructure/` (the router's
/// 404, 405, 413, 415 included) use the spec's body
/// `{"localizedMessage": "...", "status": N}`.
void add_infrastructure_routes(router& r, infrastructure_context ctx);

} // namespace stepwise::http
