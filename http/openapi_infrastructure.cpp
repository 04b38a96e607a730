// The Infrastructure API part of our OpenAPI document: the routes, schemas
// and error answers of the Ignition Infrastructure API
// (vim_infrastructure.yaml, Ignition 1.1.0), as mounted under
// /api/infrastructure when a driver is configured.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_infrastructure_paths() {
  return R"json({
  "/api/infrastructure/create": {
    "post": {
      "summary": "Create infrastructure from a template in a deployment location (Ignition). Answers once the driver accepted the request and its task monitor is durably started.",
      "operationId": "createInfrastructure",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateInfrastructureRequest"}}}},
      "responses": {
        "202": {"description": "Accepted; completion is reported by the infrastructure_task operation (event infrastructure_task_completed).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InfrastructureAccepted"}}}},
        "errors": [400, 405, 413, 415, 500, 503]}
    }
  },
  "/api/infrastructure/delete": {
    "post": {
      "summary": "Delete infrastructure (Ignition). Answers once the driver accepted the request and its task monitor is durably started.",
      "operationId": "deleteInfrastructure",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeleteInfrastructureRequest"}}}},
      "responses": {
        "202": {"description": "Accepted.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InfrastructureAccepted"}}}},
        "errors": [400, 405, 413, 415, 500, 503]}
    }
  },
  "/api/infrastructure/query": {
    "post": {
      "summary": "Ask the driver for the state of a create or delete task (Ignition).",
      "operationId": "queryInfrastructureTask",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InfrastructureTaskQuery"}}}},
      "responses": {
        "200": {"description": "The task.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InfrastructureTask"}}}},
        "errors": [400, 405, 413, 415, 500, 503]}
    }
  },
  "/api/infrastructure/find": {
    "post": {
      "summary": "Find existing, not deleted infrastructure whose resourceName is instanceName (Ignition).",
      "operationId": "findInfrastructure",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FindInfrastructureRequest"}}}},
      "responses": {
        "200": {"description": "The match, or {\"result\": null}.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FindInfrastructureResponse"}}}},
        "errors": [400, 405, 413, 415, 500, 503]}
    }
  }
})json";
}

const char* openapi_infrastructure_schemas() {
  return R"json({
  "InfrastructureErrorResponse": {
    "type": "object", "required": ["localizedMessage", "status"],
    "properties": {"localizedMessage": {"type": "string"}, "status": {"type": "integer"}}
  },
  "Properties": {"type": "object", "description": "Names to {value, type} objects (plain values are accepted too)."},
  "DeploymentLocation": {
    "type": "object", "required": ["name"],
    "properties": {"name": {"type": "string"}, "type": {"type": "string"},
      "properties": {"type": "object", "description": "Access details, possibly credentials: never echoed, masked in operations."}}
  },
  "CreateInfrastructureRequest": {
    "type": "object", "required": ["deploymentLocation", "template", "templateType"],
    "description": "Unknown fields are ignored.",
    "properties": {
      "systemProperties": {"$ref": "#/components/schemas/Properties"},
      "properties": {"$ref": "#/components/schemas/Properties"},
      "deploymentLocation": {"$ref": "#/components/schemas/DeploymentLocation"},
      "template": {"type": "string"}, "templateType": {"type": "string"}}
  },
  "DeleteInfrastructureRequest": {
    "type": "object", "required": ["infrastructureId", "deploymentLocation"],
    "properties": {"infrastructureId": {"type": "string"},
      "deploymentLocation": {"$ref": "#/components/schemas/DeploymentLocation"}}
  },
  "InfrastructureTaskQuery": {
    "type": "object", "required": ["infrastructureId", "requestId", "deploymentLocation"],
    "properties": {"infrastructureId": {"type": "string"}, "requestId": {"type": "string"},
      "deploymentLocation": {"$ref": "#/components/schemas/DeploymentLocation"}}
  },
  "FindInfrastructureRequest": {
    "type": "object", "required": ["deploymentLocation", "template", "templateType"],
    "properties": {"instanceName": {"type": "string"},
      "deploymentLocation": {"$ref": "#/components/schemas/DeploymentLocation"},
      "template": {"type": "string"}, "templateType": {"type": "string"}}
  },
  "InfrastructureAccepted": {
    "type": "object", "required": ["infrastructureId", "requestId"], "additionalProperties": false,
    "properties": {"infrastructureId": {"type": "string"}, "requestId": {"type": "string"}}
  },
  "InfrastructureTask": {
    "type": "object", "required": ["infrastructureId", "requestId", "status", "outputs"], "additionalProperties": false,
    "properties": {
      "infrastructureId": {"type": "string"}, "requestId": {"type": "string"},
      "status": {"type": "string", "enum": ["IN_PROGRESS", "COMPLETE", "FAILED"]},
      "failureDetails": {"type": "object", "required": ["failureCode", "description"], "description": "Only when status is FAILED.",
        "properties": {"failureCode": {"type": "string", "enum": ["RESOURCE_ALREADY_EXISTS", "RESOURCE_NOT_FOUND", "INFRASTRUCTURE_ERROR", "INSUFFICIENT_CAPACITY", "INTERNAL_ERROR"]},
          "description": {"type": "string"}}},
      "outputs": {"type": "object"}}
  },
  "FindInfrastructureResponse": {
    "type": "object", "required": ["result"], "additionalProperties": false,
    "properties": {"result": {"type": "object", "nullable": true, "required": ["infrastructureId", "outputs"],
      "properties": {"infrastructureId": {"type": "string"}, "outputs": {"type": "object"}}}}
  }
})json";
}

const openapi_errors& openapi_infrastructure_errors() {
  static const openapi_errors errors{
    "InfrastructureErrorResponse",
    {{{400},
      "InfrastructureBadRequest",
      "Malformed JSON, a missing or wrong-typed field, an empty or invalid "
      "template, an unreachable deployment location, or unknown "
      "infrastructure or request.",
      openapi_header::none},
     {{405},
      "InfrastructureMethodNotAllowed",
      "Only POST; the Allow header says so.",
      openapi_header::allow},
     {{413, 415, 500},
      "InfrastructureError",
      "Body too large (413), not JSON (415), or a driver error (500).",
      openapi_header::none},
     {{503},
      "InfrastructureUnavailable",
      "The driver cannot handle the request now, or the task monitor could "
      "not be started (the message says the task is not monitored). Retry "
      "after Retry-After.",
      openapi_header::retry_after}}};
  return errors;
}

} // namespace stepwise::http
