#pragma once

#include <boost/json.hpp>

namespace stepwise::http {

/// Returns our OpenAPI 3 document of every route this server answers
/// (`GET /api/v1/openapi.json`). The tests check it against what the server
/// really answers.
const boost::json::value& openapi_document();

/// Returns the `paths` object of the document as JSON text.
const char* openapi_paths();

/// Returns the `components` object of the document as JSON text.
const char* openapi_components();

/// Returns the Infrastructure API's paths, schemas and shared responses
/// (merged into the document above) as JSON text.
const char* openapi_infrastructure_paths();
const char* openapi_infrastructure_schemas();
const char* openapi_infrastructure_responses();

/// Returns the outbox's path and schemas (merged likewise) as JSON text.
const char* openapi_sinks_paths();
const char* openapi_sinks_schemas();

} // namespace stepwise::http
