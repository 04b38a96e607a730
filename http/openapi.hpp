#pragma once

#include <vector>

#include <boost/json.hpp>

namespace stepwise::http {

/// Returns our OpenAPI 3 document of every route this server answers
/// (`GET /api/v1/openapi.json`). The tests check it against what the server
/// really answers.
const boost::json::value& openapi_document();

// -- the parts the document is built from --------------------------------------

/// A header that an error answer carries.
enum class openapi_header { none, allow, retry_after };

/// One error answer of an API, described once under `components/responses`
/// and referred to by every operation that lists one of its statuses.
struct openapi_error {
  std::vector<int> statuses;
  const char* name;
  const char* description;
  openapi_header header;
};

/// The error answers of one API, all with the same body schema.
struct openapi_errors {
  /// The body's schema, under `components/schemas`.
  const char* schema;
  std::vector<openapi_error> responses;
};

/// Returns the `paths` object of `/api/v1` and the probes as JSON text. An
/// operation's `responses` list its error statuses as `"errors": [...]` (not
/// OpenAPI): openapi_document() replaces the list by references to the
/// answers of openapi_v1_errors().
const char* openapi_paths();

/// Returns the `components` object of the document (without the error
/// responses) as JSON text.
const char* openapi_components();

/// Returns the error answers of `/api/v1` (body: `Error`).
const openapi_errors& openapi_v1_errors();

/// Returns the Infrastructure API's paths (with `"errors"` lists, as above,
/// for openapi_infrastructure_errors()) and schemas as JSON text, merged
/// into the document.
const char* openapi_infrastructure_paths();
const char* openapi_infrastructure_schemas();

/// Returns the Infrastructure API's error answers (body:
/// `InfrastructureErrorResponse`).
const openapi_errors& openapi_infrastructure_errors();

/// Returns the outbox's path and schemas (merged likewise) as JSON text.
const char* openapi_sinks_paths();
const char* openapi_sinks_schemas();

/// The task routes workers call (openapi_tasks.cpp).
const char* openapi_tasks_paths();
const char* openapi_tasks_schemas();

/// `GET /api/v1/cluster` (openapi_cluster.cpp).
const char* openapi_cluster_paths();
const char* openapi_cluster_schemas();
/// Returns the schedules' paths (with `"errors"` lists for
/// openapi_v1_errors()) and schemas as JSON text.
const char* openapi_schedules_paths();
const char* openapi_schedules_schemas();

/// Returns the paths of the console and of its reads (with `"errors"`
/// lists for openapi_v1_errors()) and their schemas as JSON text.
const char* openapi_front_paths();
const char* openapi_front_schemas();

/// Returns the service broker's paths (with `"errors"` lists for
/// openapi_osb_errors()), schemas and parameters as JSON text.
const char* openapi_osb_paths();
const char* openapi_osb_schemas();
const char* openapi_osb_parameters();

/// Returns the service broker's error answers (body: `OsbError`).
const openapi_errors& openapi_osb_errors();

/// Adds the security schemes and, to every operation, who may call it and
/// its 401 and 403 answers, by the rule the server applies (http/auth.hpp).
void add_openapi_security(boost::json::object& doc);

} // namespace stepwise::http
