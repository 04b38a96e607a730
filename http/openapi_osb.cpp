// The Open Service Broker API (v2.17) part of our OpenAPI document, as
// mounted on /v2/ with --osb.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_osb_paths() {
  return R"json({
  "/v2/catalog": {"get": {
    "summary": "Service broker: the catalog (one service, stepwise-runtime, whose plans fix the template type).",
    "operationId": "osbCatalog",
    "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}],
    "responses": {
      "200": {"description": "The catalog.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbCatalog"}}}},
      "errors": [401, 412]}}},
  "/v2/service_instances/{instance_id}": {
    "put": {
      "summary": "Service broker: provision a runtime (starts provision_runtime with the instance id as idempotency key). Asynchronous only.",
      "operationId": "osbProvision",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"},
        {"name": "accepts_incomplete", "in": "query", "required": true, "schema": {"type": "boolean"}}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbProvisionRequest"}}}},
      "responses": {
        "202": {"description": "Provisioning started or in progress; poll last_operation.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbAsyncOperation"}}}},
        "200": {"description": "Already provisioned with the same plan and parameters.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbEmpty"}}}},
        "errors": [400, 401, 409, 412, 413, 422, 503]}},
    "delete": {
      "summary": "Service broker: deprovision a runtime (starts deprovision_runtime). Asynchronous only.",
      "operationId": "osbDeprovision",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"},
        {"name": "service_id", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "plan_id", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "accepts_incomplete", "in": "query", "required": true, "schema": {"type": "boolean"}}],
      "responses": {
        "202": {"description": "Deprovisioning started, in progress, or retried after a failure.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbAsyncOperation"}}}},
        "200": {"description": "Provisioning created nothing: nothing to delete.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbEmpty"}}}},
        "410": {"description": "No such instance, or already deprovisioned.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbEmpty"}}}},
        "errors": [400, 401, 412, 422, 503]}},
    "get": {
      "summary": "Service broker: fetch a provisioned instance (its plan and parameters; the location's credentials are never shown).",
      "operationId": "osbFetchInstance",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"},
        {"name": "service_id", "in": "query", "schema": {"type": "string"}},
        {"name": "plan_id", "in": "query", "schema": {"type": "string"}}],
      "responses": {
        "200": {"description": "The instance.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbInstance"}}}},
        "errors": [401, 404, 412, 422, 503]}},
    "patch": {
      "summary": "Service broker: change an instance's plan or parameters (starts update_runtime, which replaces the runtime's infrastructure). Asynchronous only.",
      "operationId": "osbUpdate",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"},
        {"name": "accepts_incomplete", "in": "query", "required": true, "schema": {"type": "boolean"}}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbUpdateRequest"}}}},
      "responses": {
        "202": {"description": "The update started, or is in progress (the same PATCH again); poll last_operation.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbAsyncOperation"}}}},
        "200": {"description": "Nothing to change.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbEmpty"}}}},
        "errors": [400, 401, 404, 412, 413, 422, 503]}}},
  "/v2/service_instances/{instance_id}/service_bindings/{binding_id}": {
    "put": {
      "summary": "Service broker: bind (starts bind_runtime, which issues a credential for the runtime). Asynchronous only; fetch the binding once last_operation says succeeded.",
      "operationId": "osbBind",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"}, {"$ref": "#/components/parameters/BindingId"},
        {"name": "accepts_incomplete", "in": "query", "required": true, "schema": {"type": "boolean"}}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbBindRequest"}}}},
      "responses": {
        "202": {"description": "Binding started or in progress (never with the credential).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbAsyncOperation"}}}},
        "200": {"description": "The binding exists with the same request: its credential.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbBinding"}}}},
        "errors": [400, 401, 404, 409, 412, 413, 422, 503]}},
    "get": {
      "summary": "Service broker: fetch a binding: the runtime's url and the binding's credential, opened for the platform (stored sealed).",
      "operationId": "osbFetchBinding",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"}, {"$ref": "#/components/parameters/BindingId"},
        {"name": "service_id", "in": "query", "schema": {"type": "string"}},
        {"name": "plan_id", "in": "query", "schema": {"type": "string"}}],
      "responses": {
        "200": {"description": "The binding.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbBinding"}}}},
        "errors": [401, 404, 412, 503]}},
    "delete": {
      "summary": "Service broker: unbind (starts unbind_runtime, which revokes the credential). Asynchronous only.",
      "operationId": "osbUnbind",
      "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"}, {"$ref": "#/components/parameters/BindingId"},
        {"name": "service_id", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "plan_id", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "accepts_incomplete", "in": "query", "required": true, "schema": {"type": "boolean"}}],
      "responses": {
        "202": {"description": "Unbinding started, in progress, or retried after a failure.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbAsyncOperation"}}}},
        "410": {"description": "No such binding, or already unbound.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbEmpty"}}}},
        "errors": [400, 401, 412, 422, 503]}}},
  "/v2/service_instances/{instance_id}/service_bindings/{binding_id}/last_operation": {"get": {
    "summary": "Service broker: the state of the binding's last (or the named) operation: its binding or unbinding.",
    "operationId": "osbBindingLastOperation",
    "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"}, {"$ref": "#/components/parameters/BindingId"},
      {"name": "operation", "in": "query", "schema": {"type": "string"}},
      {"name": "service_id", "in": "query", "schema": {"type": "string"}},
      {"name": "plan_id", "in": "query", "schema": {"type": "string"}}],
    "responses": {
      "200": {"description": "The state.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbLastOperation"}}}},
      "errors": [400, 401, 404, 412, 503]}}},
  "/v2/service_instances/{instance_id}/last_operation": {"get": {
    "summary": "Service broker: the state of the instance's last (or the named) operation.",
    "operationId": "osbLastOperation",
    "parameters": [{"$ref": "#/components/parameters/BrokerApiVersion"}, {"$ref": "#/components/parameters/InstanceId"},
      {"name": "operation", "in": "query", "schema": {"type": "string"}},
      {"name": "service_id", "in": "query", "schema": {"type": "string"}},
      {"name": "plan_id", "in": "query", "schema": {"type": "string"}}],
    "responses": {
      "200": {"description": "The state.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OsbLastOperation"}}}},
      "errors": [400, 401, 404, 412, 503]}}}
})json";
}

const char* openapi_osb_schemas() {
  return R"json({
  "OsbError": {"type": "object", "required": ["error", "description"],
    "properties": {"error": {"type": "string", "description": "One CamelCase word: AsyncRequired, ConcurrencyError, Conflict, InvalidParameters, UnsupportedApiVersion, Unauthorized, NotFound, ..."},
                   "description": {"type": "string"}}},
  "OsbEmpty": {"type": "object", "additionalProperties": false, "properties": {}},
  "OsbAsyncOperation": {"type": "object", "required": ["operation"], "additionalProperties": false,
    "properties": {"operation": {"type": "string", "description": "The stepwise operation id; pass it to last_operation."}}},
  "OsbLastOperation": {"type": "object", "required": ["state", "description"], "additionalProperties": false,
    "properties": {"state": {"type": "string", "enum": ["in progress", "succeeded", "failed"]}, "description": {"type": "string"},
      "instance_usable": {"type": "boolean", "description": "A failed update only: the runtime works as before."},
      "update_repeatable": {"type": "boolean", "description": "A failed update only."}}},
  "OsbInstance": {"type": "object", "required": ["service_id", "plan_id", "parameters"], "additionalProperties": false,
    "properties": {"service_id": {"type": "string"}, "plan_id": {"type": "string", "description": "The plan now (the last applied update's)."},
      "parameters": {"type": "object", "description": "name, template, properties, and deployment_location without its properties."}}},
  "OsbUpdateRequest": {"type": "object", "required": ["service_id"],
    "properties": {"service_id": {"type": "string"}, "plan_id": {"type": "string", "description": "Absent: the plan stays."},
      "parameters": {"type": "object", "description": "template?, properties? (see the plan's update schema); name and deployment_location cannot change."},
      "previous_values": {"type": "object"}, "context": {"type": "object"}, "maintenance_info": {"type": "object"}}},
  "OsbBindRequest": {"type": "object", "required": ["service_id", "plan_id"],
    "properties": {"service_id": {"type": "string"}, "plan_id": {"type": "string", "description": "The instance's plan."},
      "parameters": {"type": "object", "description": "None are taken (an empty object at most)."},
      "bind_resource": {"type": "object"}, "app_guid": {"type": "string"}, "context": {"type": "object"}}},
  "OsbBinding": {"type": "object", "required": ["credentials"], "additionalProperties": false,
    "properties": {"credentials": {"type": "object", "required": ["username", "password"], "additionalProperties": false,
        "properties": {"url": {"type": "string", "description": "The runtime's url output."}, "username": {"type": "string"},
          "password": {"type": "string", "description": "Generated for this binding; stored sealed, never in events or logs."}}},
      "parameters": {"type": "object"}}},
  "OsbCatalog": {"type": "object", "required": ["services"],
    "properties": {"services": {"type": "array", "items": {"type": "object",
      "required": ["id", "name", "description", "bindable", "plans"],
      "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "description": {"type": "string"},
        "bindable": {"type": "boolean"},
        "plans": {"type": "array", "items": {"type": "object", "required": ["id", "name", "description"],
          "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "description": {"type": "string"},
            "schemas": {"type": "object"}}}}}}}}},
  "OsbProvisionRequest": {"type": "object", "required": ["service_id", "plan_id"],
    "properties": {"service_id": {"type": "string"}, "plan_id": {"type": "string"},
      "parameters": {"type": "object", "description": "The plan's parameters (see its schema in the catalog): deployment_location, template, name?, properties?."},
      "context": {"type": "object"}, "organization_guid": {"type": "string"}, "space_guid": {"type": "string"}}}
})json";
}

const char* openapi_osb_parameters() {
  return R"json({
  "BrokerApiVersion": {"name": "X-Broker-API-Version", "in": "header", "required": true,
    "schema": {"type": "string", "example": "2.17"}, "description": "2.13 or later (412 otherwise)."},
  "InstanceId": {"name": "instance_id", "in": "path", "required": true, "schema": {"type": "string"}},
  "BindingId": {"name": "binding_id", "in": "path", "required": true, "schema": {"type": "string"}}
})json";
}

const openapi_errors& openapi_osb_errors() {
  static const openapi_errors errors{
    "OsbError",
    {{{400},
      "OsbBadRequest",
      "Malformed JSON, unknown service or plan, invalid parameters.",
      openapi_header::none},
     {{401}, "OsbUnauthorized", "Missing or wrong basic credentials.", openapi_header::none},
     {{404},
      "OsbNotFound",
      "No such instance, binding or operation; an instance still being provisioned, or a binding "
      "still being made (GET).",
      openapi_header::none},
     {{405}, "OsbMethodNotAllowed", "The path does not serve this method.", openapi_header::allow},
     {{409},
      "OsbConflict",
      "The instance (or binding) exists with another plan or parameters, or was deprovisioned "
      "(unbound): ids are not reused.",
      openapi_header::none},
     {{412},
      "OsbPreconditionFailed",
      "X-Broker-API-Version is missing or below 2.13.",
      openapi_header::none},
     {{413}, "OsbPayloadTooLarge", "The body exceeds the configured limit.", openapi_header::none},
     {{422},
      "OsbUnprocessable",
      "AsyncRequired (no accepts_incomplete=true), ConcurrencyError (another operation of the "
      "instance runs: provisioning, an update, deprovisioning, or the binding being made), or "
      "InstanceNotUsable (its provisioning failed).",
      openapi_header::none},
     {{503},
      "OsbUnavailable",
      "The engine cannot take the request now; retry.",
      openapi_header::retry_after}}};
  return errors;
}

} // namespace stepwise::http
