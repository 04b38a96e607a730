#pragma once

#include <string>
#include <string_view>

#include "infra/driver.hpp"
#include "engine/async_call.hpp"
#include "engine/outcome.hpp"
#include "engine/step_context.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Helpers shared by the infrastructure workflows' steps.

/// Returns the string at `key` of `obj`, empty when absent or not a string.
std::string string_at(const boost::json::object& obj, std::string_view key);

/// Reads the operation whose id is the input's `field`, as stored (secrets
/// sealed). A store failure is temporary (the step is retried); a missing
/// id or operation is not.
infra::result<operation> read_operation_at(const read_operation_fn& read, const step_context& ctx,
                                           const char* field);

/// Returns the deployment location of the operation at the input's
/// `provision_operation_id`, read again each time and its credentials
/// opened in memory: keeping it in the operation's data would store a
/// secret once more, and keeping it as a transient value would keep a
/// sleeping monitor from being passivated.
infra::result<infra::deployment_location> provisioning_location(const read_operation_fn& read,
                                                                step_context& ctx);

/// Maps a refused create or delete call to an outcome: a temporary error or
/// an unreachable location is retried (paced and bounded by the step's
/// policy); anything else fails the step with the error's kind and message.
outcome refused(std::string_view call, const infra::error& err);

/// What a create asks for.
struct create_spec {
  std::string template_text;
  std::string template_type;
  std::string resource_name;
  boost::json::object properties;
  infra::deployment_location location;
};

/// Starts a create with the step's idempotency key as `requestId`, so that
/// a step run again after a crash creates nothing new, and completes `call`
/// when the driver answers (holding no thread meanwhile). On success stores
/// `{"infrastructure_id", "request_id"}` under `data_key`. Completes at once
/// when `data_key` is already set (the create was accepted).
void create_once(infra::driver& drv, const async_call& call, const std::string& data_key,
                 create_spec spec);

/// Starts deleting the infrastructure whose ids are under `ids_key` and
/// completes `call` when the driver answers; stores the delete task's ids
/// under `data_key`, or `{"already_gone": true}` when the driver knows no
/// such infrastructure. Completes at once when there are no ids (nothing
/// was created) or `data_key` is already set.
void remove_once(infra::driver& drv, const async_call& call, const std::string& ids_key,
                 const std::string& data_key, const infra::deployment_location& loc);

} // namespace stepwise::workflows
