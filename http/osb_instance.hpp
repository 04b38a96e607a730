#pragma once

#include <optional>
#include <string>

#include <caf/expected.hpp>

#include "http/errors.hpp"
#include "http/osb.hpp"

/// What the broker's routes share: its error values, and an instance found
/// from its operations. The broker keeps no state of its own; an instance
/// is a chain of operations found by idempotency key:
///
/// - its provisioning: key = the instance id (`provision_runtime`);
/// - its updates: `osb-update:ID:1`, `:2`, ... (`update_runtime`), one
///   after the other (a PATCH while the newest runs is a ConcurrencyError);
/// - its bindings: `osb-bind:ID:BINDING` (`bind_runtime`) and their
///   removal `osb-unbind:ID:BINDING` (`unbind_runtime`);
/// - its deprovisioning: `osb_deprovision_key(ID)`.
///
/// Every one of them is serialized by the runtime's name, so that even
/// requests racing past the broker's checks run one at a time.
namespace stepwise::http {

/// A `/v2/` error: `{"error": code, "description"}`.
api_error osb_error(int status, const char* code, std::string description);

/// 422 `AsyncRequired`.
api_error osb_async_required();

/// 422 `ConcurrencyError`: `what` runs.
api_error osb_concurrency_error(const std::string& what);

/// Returns whether the request has `accepts_incomplete=true`.
bool osb_accepts_incomplete(const server_request& req);

std::string osb_update_key(const std::string& instance_id, int n);
std::string osb_bind_key(const std::string& instance_id, const std::string& binding_id);
std::string osb_unbind_key(const std::string& instance_id, const std::string& binding_id);

/// Returns the operation created with `key` as stored (secrets sealed),
/// with the engine's current state, steps and data when it has not ended:
/// the store lags an operation that has not checkpointed its latest step.
caf::expected<std::optional<operation>> osb_find_live(const osb_context& c, const std::string& key);

/// An instance's operations, as stored (secrets sealed); states are the
/// engine's at the time of the lookup.
struct osb_instance {
  operation provisioning;
  std::optional<operation> deprovisioning;
  /// The newest update, in any state, and its number (0: none).
  std::optional<operation> last_update;
  int updates = 0;
  /// The newest update that succeeded, whose runtime replaced the
  /// provisioning's.
  std::optional<operation> last_applied;

  /// The operation whose `runtime` is the instance's now.
  const operation& runtime() const {
    return last_applied ? *last_applied : provisioning;
  }

  /// Returns what runs (provisioning, an update, deprovisioning), or none.
  std::optional<std::string> busy() const;

  /// Returns why instance `id` cannot be updated or bound now (422
  /// `ConcurrencyError` while something runs, `InstanceNotUsable` when it
  /// failed to provision), or none.
  std::optional<api_error> refuses_change(const std::string& id) const;
};

/// Finds instance `id` (none: never provisioned through the broker).
caf::expected<std::optional<osb_instance>> find_osb_instance(const osb_context& c,
                                                             const std::string& id);

/// Parses a PUT or PATCH body: a JSON object whose `service_id` is the
/// broker's service, and with `plan_required` a string `plan_id` (which
/// plan it names is for the caller to check: an update may leave it out).
/// On success `out` is the body.
std::optional<api_error> osb_parse_body(const osb_context& c, std::string_view body,
                                        bool plan_required, boost::json::object& out);

/// Finds instance `id` as `find_osb_instance`, when it exists and is not
/// deprovisioned; otherwise returns the error to answer (404 NotFound, or
/// the store's error).
std::optional<api_error> find_live_osb_instance(const osb_context& c, const std::string& id,
                                                osb_instance& out);

/// Returns the broker's `{"service_id", "plan_id", ...}` of `op`'s input.
const boost::json::object* osb_broker_fields(const operation& op);

using osb_handler = void (*)(const router&, const osb_context&, request&, server_response&);

/// Adds route `method pattern` calling `h` with the broker's context.
void add_osb_route(router& r, const std::shared_ptr<const osb_context>& c, const char* method,
                   std::string pattern, osb_handler h);

/// Mounts `GET` and `PATCH /v2/service_instances/{instance_id}`.
void add_osb_instance_routes(router& r, const std::shared_ptr<const osb_context>& c);

/// Mounts the bindings: `PUT|GET|DELETE
/// /v2/service_instances/{instance_id}/service_bindings/{binding_id}` and
/// its `last_operation`.
void add_osb_binding_routes(router& r, const std::shared_ptr<const osb_context>& c);

} // namespace stepwise::http
