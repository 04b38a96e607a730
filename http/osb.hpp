#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <caf/expected.hpp>

#include "engine/engine.hpp"
#include "engine/key_ring.hpp"
#include "engine/operation.hpp"
#include "http/osb_credentials.hpp"
#include "http/router.hpp"

namespace stepwise::http {

/// Finds the operation created with an idempotency key (the server wires it
/// to the store). Its input is not masked: callers read ids and states only.
using find_by_key_fn =
  std::function<caf::expected<std::optional<operation>>(const std::string& key)>;

/// What the Open Service Broker routes need.
struct osb_context {
  stepwise::engine eng;
  find_by_key_fn find_by_key;
  /// The platform's basic credentials; every `/v2/` request needs them.
  std::shared_ptr<const basic_credentials> credentials;
  /// The engine's key ring (null: secrets stored plain): the broker opens
  /// a binding's credential with it to hand it to the platform.
  std::shared_ptr<const key_ring> keys;
  size_t max_json_depth = 32;
};

/// The oldest `X-Broker-API-Version` the broker accepts (412 below).
inline constexpr int osb_min_minor = 13;

/// The idempotency key of an instance's deprovisioning (its provisioning's
/// key is the instance id itself).
std::string osb_deprovision_key(const std::string& instance_id);

/// Mounts the Open Service Broker API v2.17 (`/v2/catalog`,
/// `PUT|GET|PATCH|DELETE /v2/service_instances/{instance_id}`, its
/// `last_operation`, and `PUT|GET|DELETE
/// .../service_bindings/{binding_id}` with theirs) on `r`: one service
/// whose instances are runtimes made by `provision_runtime`, changed by
/// `update_runtime` and removed by `deprovision_runtime`, bound with
/// `bind_runtime` and `unbind_runtime` (http/osb_instance.hpp). Errors
/// under `/v2/` are `{"error", "description"}`. Needs the infrastructure
/// workflows.
void add_osb_routes(router& r, osb_context ctx);

} // namespace stepwise::http
