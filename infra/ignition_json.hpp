#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "infra/driver.hpp"

namespace stepwise::infra {

/// JSON <-> driver types of the Ignition Infrastructure API
/// (vim_infrastructure.yaml, Ignition 1.1.0): camelCase on the wire.
///
/// Both sides use them: the gateway decodes requests and encodes answers;
/// the HTTP client driver encodes requests and decodes answers.
///
/// Decoders return an error message that names the field (`missing required
/// field 'deploymentLocation.name'`, `field 'template' must be a string`)
/// and never quotes a value, since location properties may be credentials.
/// Unknown fields are ignored: Ignition clients (Brent) send fields this API
/// does not describe, and rejecting them would break those clients. `null`
/// for an optional field reads as absent.

// -- request bodies ------------------------------------------------------------

/// The body of `POST /delete` (DeleteInfrastructureRequest).
struct delete_request {
  std::string infrastructure_id;
  deployment_location location;
};

/// The body of `POST /query` (InfrastructureTaskQuery).
struct task_query {
  std::string infrastructure_id;
  std::string request_id;
  deployment_location location;
};

/// The body of `POST /find` (FindInfrastructureRequest).
struct find_request {
  std::string template_text;
  std::string template_type;
  /// Optional in the spec; empty when absent.
  std::string instance_name;
  deployment_location location;
};

using decode_error = std::optional<std::string>;

decode_error decode_create_request(const boost::json::value& v, create_request& out);
decode_error decode_delete_request(const boost::json::value& v, delete_request& out);
decode_error decode_task_query(const boost::json::value& v, task_query& out);
decode_error decode_find_request(const boost::json::value& v, find_request& out);

boost::json::object encode(const create_request& x);
boost::json::object encode(const delete_request& x);
boost::json::object encode(const task_query& x);
boost::json::object encode(const find_request& x);

/// Returns `{name, type, properties}` (properties included: callers that
/// show it must mask them).
boost::json::object encode(const deployment_location& x);

/// Reads `{name, type?, properties?}`; `at` prefixes field names in errors.
decode_error decode_location(const boost::json::value& v, const std::string& at,
                             deployment_location& out);

// -- answers -------------------------------------------------------------------

/// Create/DeleteInfrastructureResponse: `{infrastructureId, requestId}`.
boost::json::object encode(const accepted& x);
decode_error decode_accepted(const boost::json::value& v, accepted& out);

/// InfrastructureTask: `{infrastructureId, requestId, status, outputs}` plus
/// `failureDetails: {failureCode, description}` when the task failed.
boost::json::object encode(const task& x);
decode_error decode_task(const boost::json::value& v, task& out);

/// FindInfrastructureResponse: `{"result": null}` or
/// `{"result": {infrastructureId, outputs}}`.
boost::json::object encode(const std::optional<found>& x);
decode_error decode_found(const boost::json::value& v, std::optional<found>& out);

/// The Ignition error body: `{localizedMessage, status}`.
boost::json::object encode_error(const std::string& message, int status);

} // namespace stepwise::infra
