#include "http/openapi.hpp"

#include <stdexcept>
#include <string>

#include "http/query.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

// Error statuses are listed, not described: each error answer is described
// once (openapi_v1_errors()), and add_error_responses() below refers to it.
const char* openapi_paths() {
  return R"json({
  "/api/v1/operations": {
    "post": {
      "summary": "Start an operation.",
      "operationId": "startOperation",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/StartRequest"}}}},
      "responses": {
        "201": {"description": "Created.", "headers": {"Location": {"schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "200": {"description": "The idempotency key replayed an existing operation with the same request.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 405, 409, 413, 415, 503]}
    },
    "get": {
      "summary": "List operations, newest first (created time, then id).",
      "operationId": "listOperations",
      "parameters": [
        {"name": "state", "in": "query", "schema": {"$ref": "#/components/schemas/OperationState"}},
        {"name": "workflow", "in": "query", "schema": {"type": "string"}},
        {"name": "parent", "in": "query", "schema": {"type": "string"}, "description": "Only the operations this operation's steps started (its children)."},
        {"name": "schedule", "in": "query", "schema": {"type": "string"}, "description": "Only the operations this schedule's fires started."},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}},
        {"name": "cursor", "in": "query", "schema": {"type": "string"}, "description": "next_cursor of the previous page."},
        {"name": "label", "in": "query", "style": "form", "explode": true, "schema": {"type": "array", "maxItems": 16, "items": {"type": "string", "pattern": "^[a-z0-9_.-]{1,63}=.{0,256}$"}}, "description": "key=value: only the operations with this label; repeated, only those with all of them (label=runtime=rt-1&label=location=dc1). Indexed."},
        {"name": "created_after", "in": "query", "schema": {"type": "string", "format": "date-time"}, "description": "Only the operations created strictly after this time."},
        {"name": "created_before", "in": "query", "schema": {"type": "string", "format": "date-time"}, "description": "Only the operations created strictly before this time."},
        {"name": "idempotency_key", "in": "query", "schema": {"type": "string"}, "description": "Only the operation started with this idempotency key."}],
      "responses": {
        "200": {"description": "A page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OperationPage"}}}},
        "errors": [400, 503]}
    }
  },
  "/api/v1/operations/{id}": {
    "get": {
      "summary": "Get an operation with its steps.",
      "operationId": "getOperation",
      "parameters": [{"$ref": "#/components/parameters/OperationId"}],
      "responses": {
        "200": {"description": "The operation.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [404, 503]}
    }
  },
  "/api/v1/operations/{id}/cancel": {
    "post": {
      "summary": "Cancel a pending, in_progress, waiting or paused operation (a queued one leaves its queue). The body may be empty or {}.",
      "operationId": "cancelOperation",
      "parameters": [{"$ref": "#/components/parameters/OperationId"}],
      "responses": {
        "202": {"description": "Accepted; the body may still show the old state; an operation_canceled event follows.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 409, 415, 503]}
    }
  },
  "/api/v1/operations/{id}/retry": {
    "post": {
      "summary": "Retry an operation: a failed or canceled one goes on where it stopped, a paused one is resumed, a succeeded one runs its incomplete best-effort steps again (each with a fresh retry budget). input is a JSON merge patch (RFC 7396) on the operation's input, applied first (input_patched, naming the patched paths, never the values; secret paths stay sealed, a patched secret is sealed anew). from_step runs that step and every step after it again (steps_reset; allowed on a succeeded operation too; the data they stored stays until they replace it); it must not lie past the step where the operation stopped. A failed, canceled or succeeded operation begins a new run (operation_retried) that ends with a terminal event of its own. The operation keeps its workflow version. 400 naming the field (non-object input, a from_step the workflow does not have); 409 naming the state when it does not allow a retry, or when the deadline has passed. The body may be empty or {}.",
      "operationId": "retryOperation",
      "parameters": [{"$ref": "#/components/parameters/OperationId"}],
      "requestBody": {"required": false, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RetryRequest"}}}},
      "responses": {
        "202": {"description": "Accepted.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 409, 415, 503]}
    }
  },
  "/api/v1/operations/{id}/skip": {
    "post": {
      "summary": "Skip the step a failed, paused or waiting operation stopped at: it is recorded skipped (step_skipped with the reason) and the operation goes on with the next step (a failed one in a new run, operation_retried). 400 naming the field (step missing or not in the workflow, reason missing or over 1024 bytes); 409 naming the state when the step is not the failed, paused or waiting one.",
      "operationId": "skipStep",
      "parameters": [{"$ref": "#/components/parameters/OperationId"}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SkipRequest"}}}},
      "responses": {
        "202": {"description": "Accepted.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 409, 415, 503]}
    }
  },
  "/api/v1/operations/{id}/pause": {
    "post": {
      "summary": "Pause a pending, in_progress or waiting operation at its next step boundary: at once when no attempt runs (a due retry, a sleep or a wait starts again on resume), else the running attempt is asked to stop (pause_requested is true) and the operation pauses when it ends. A paused operation holds no actor. Queued operations cannot be paused (409). The body may be empty or {}.",
      "operationId": "pauseOperation",
      "parameters": [{"$ref": "#/components/parameters/OperationId"}],
      "responses": {
        "202": {"description": "Accepted; an operation_paused event follows (or came with this write).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 409, 415, 503]}
    }
  },
  "/api/v1/operations/{id}/resume": {
    "post": {
      "summary": "Continue a paused operation at the step where it stopped, with a fresh retry budget (operation_resumed); withdraws a pause that was asked for and not yet taken. The body may be empty or {}.",
      "operationId": "resumeOperation",
      "parameters": [{"$ref": "#/components/parameters/OperationId"}],
      "responses": {
        "202": {"description": "Accepted.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 409, 415, 503]}
    }
  },
  "/api/v1/operations/{id}/signals/{name}": {
    "post": {
      "summary": "Send a signal (a named external event) to an operation. It is stored with a signal_received event whether or not the operation waits for it now; a wait step for that name takes it, now or when it gets there, and puts the payload in the operation's data. The body is the payload (a JSON object; empty means {}); its optional signal_id makes a repeat a no-op.",
      "operationId": "signalOperation",
      "parameters": [{"$ref": "#/components/parameters/OperationId"},
        {"name": "name", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$"}}],
      "requestBody": {"required": false, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SignalBody"}}}},
      "responses": {
        "202": {"description": "Stored (and, if the operation waited for it, the wait ended in the same write).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "200": {"description": "A signal with this signal_id was stored before: nothing new was written.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 409, 413, 415, 503]}
    }
  },
  "/api/v1/workflows": {
    "get": {
      "summary": "List every registered workflow definition (each version).",
      "operationId": "listWorkflows",
      "responses": {"200": {"description": "The definitions.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WorkflowList"}}}}}
    }
  },
  "/api/v1/workflows/{name}": {
    "get": {
      "summary": "Get a workflow definition: the newest version, or the one asked for.",
      "operationId": "getWorkflow",
      "parameters": [
        {"name": "name", "in": "path", "required": true, "schema": {"type": "string"}},
        {"name": "version", "in": "query", "schema": {"type": "integer", "minimum": 1}}],
      "responses": {
        "200": {"description": "The definition.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WorkflowDetail"}}}},
        "errors": [400, 404]}
    },
    "put": {
      "summary": "Define a workflow as data: its steps are tasks that workers poll (/api/v1/tasks), sleeps, signal waits and child operations. The first definition is version 1 (201); the same definition again answers the newest version (200); another one is a new version (201), and operations keep the version they started on. Stored in the store: every server sharing it runs it.",
      "operationId": "defineWorkflow",
      "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$"}}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WorkflowDefinition"}}}},
      "responses": {
        "201": {"description": "A new version.", "headers": {"Location": {"schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Workflow"}}}},
        "200": {"description": "The newest version has this definition: nothing was written.", "headers": {"Location": {"schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Workflow"}}}},
        "errors": [400, 409, 413, 415, 503]}
    },
    "delete": {
      "summary": "Delete every version of a workflow defined as data. Refused (409) while an operation of it has not ended, and for a workflow built into the server.",
      "operationId": "deleteWorkflow",
      "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}],
      "responses": {
        "200": {"description": "Deleted.", "content": {"application/json": {"schema": {"type": "object", "required": ["name", "versions_deleted"], "additionalProperties": false, "properties": {"name": {"type": "string"}, "versions_deleted": {"type": "integer"}}}}}},
        "errors": [404, 409, 503]}
    }
  },
  "/api/v1/events": {
    "get": {
      "summary": "Read the event log (long poll): events with seq > after, oldest first.",
      "operationId": "pollEvents",
      "parameters": [
        {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0, "default": 0}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}},
        {"name": "wait", "in": "query", "schema": {"type": "number", "minimum": 0, "maximum": 60, "default": 0}, "description": "Seconds to wait when there is no event yet; answers as soon as one exists."},
        {"name": "type", "in": "query", "schema": {"type": "string"}, "description": "Only events of these types, comma-separated (operation_succeeded,operation_failed,operation_canceled); others are skipped, and next_after (the stream's position) moves past them."},
        {"name": "operation", "in": "query", "schema": {"type": "string"}, "description": "Only the events of this operation."},
        {"name": "workflow", "in": "query", "schema": {"type": "string"}, "description": "Only the events of operations of this workflow."},
        {"name": "label", "in": "query", "style": "form", "explode": true, "schema": {"type": "array", "maxItems": 16, "items": {"type": "string", "pattern": "^[a-z0-9_.-]{1,63}=.{0,256}$"}}, "description": "key=value: only the events of operations with this label; repeated, with all of them. Each operation is read once to know its labels."}],
      "responses": {
        "200": {"description": "Events (possibly none).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EventPage"}}}},
        "errors": [400, 410, 503]}
    }
  },
  "/api/v1/events/stream": {
    "get": {
      "summary": "Server-sent events: id = seq, event = type, data = the event's JSON. Resumes after the Last-Event-ID header (or the after parameter; default: from the start of the log), with no gap and no duplicate, across restarts.",
      "operationId": "streamEvents",
      "parameters": [
        {"name": "Last-Event-ID", "in": "header", "schema": {"type": "integer", "minimum": 0}},
        {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "type", "in": "query", "schema": {"type": "string"}, "description": "Only events of these types, comma-separated (operation_succeeded,operation_failed,operation_canceled); others are skipped, and next_after (the stream's position) moves past them."},
        {"name": "operation", "in": "query", "schema": {"type": "string"}, "description": "Only the events of this operation."},
        {"name": "workflow", "in": "query", "schema": {"type": "string"}, "description": "Only the events of operations of this workflow."},
        {"name": "label", "in": "query", "style": "form", "explode": true, "schema": {"type": "array", "maxItems": 16, "items": {"type": "string", "pattern": "^[a-z0-9_.-]{1,63}=.{0,256}$"}}, "description": "key=value: only the events of operations with this label; repeated, with all of them. Each operation is read once to know its labels."}],
      "responses": {
        "200": {"description": "An endless stream; comment lines keep it alive. It ends when it falls behind retention (a removal took events after the last one sent): reconnecting with Last-Event-ID then answers 410.", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
        "errors": [400, 410, 503]}
    }
  },
  "/api/v1/openapi.json": {
    "get": {"summary": "This document.", "operationId": "openapi",
      "responses": {"200": {"description": "OpenAPI 3 document.", "content": {"application/json": {"schema": {"type": "object", "required": ["openapi", "info", "paths"]}}}}}}
  },
  "/healthz": {
    "get": {"summary": "Liveness: the process answers.", "operationId": "healthz",
      "responses": {"200": {"description": "Up.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}}}}
  },
  "/readyz": {
    "get": {"summary": "Readiness: recovery is done, the store answers and the server is not draining (503 shutting_down from SIGTERM on).", "operationId": "readyz",
      "responses": {
        "200": {"description": "Ready.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Ready"}}}},
        "errors": [503]}}
  },
  "/metrics": {
    "get": {"summary": "Prometheus text format.", "operationId": "metrics",
      "responses": {"200": {"description": "Metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}}}}
  }
})json";
}

namespace {

namespace json = boost::json;

json::object schema_of(const char* type) {
  return {{"schema", json::object{{"type", type}}}};
}

json::object error_response(const openapi_error& e, const char* schema) {
  json::object r{{"description", e.description}};
  if (e.header == openapi_header::allow)
    r["headers"] = json::object{{"Allow", schema_of("string")}};
  else if (e.header == openapi_header::retry_after)
    r["headers"] = json::object{{"Retry-After", schema_of("integer")}};
  auto ref = json::object{{"$ref", std::string("#/components/schemas/") + schema}};
  r["content"] = json::object{{"application/json", json::object{{"schema", ref}}}};
  return r;
}

// A status that the API has no error answer for is a mistake in the paths'
// text: it throws, as a malformed text does.
const openapi_error& error_for(const openapi_errors& errors, int status) {
  for (auto& e : errors.responses)
    for (auto s : e.statuses)
      if (s == status)
        return e;
  throw std::logic_error("openapi: no error answer for status " + std::to_string(status));
}

// Each operation refers to the one description of each of its error answers
// instead of repeating it.
void add_error_responses(json::object& paths, const openapi_errors& errors) {
  for (auto& path : paths) {
    for (auto& op : path.value().as_object()) {
      auto& responses = op.value().as_object()["responses"].as_object();
      auto list = responses.if_contains("errors");
      if (list == nullptr)
        continue;
      for (auto& s : list->as_array()) {
        auto status = static_cast<int>(s.as_int64());
        responses[std::to_string(status)] = json::object{
          {"$ref", std::string("#/components/responses/") + error_for(errors, status).name}};
      }
      responses.erase("errors");
    }
  }
}

// The console's, the outbox's, the cluster's, the schedules', the tasks'
// and the service broker's paths (openapi_front.cpp, openapi_sinks.cpp,
// openapi_cluster.cpp, openapi_schedules.cpp, openapi_tasks.cpp,
// openapi_osb.cpp).
void merge_front_doors(json::object& paths) {
  auto front = json::parse(openapi_front_paths()).as_object();
  add_error_responses(front, openapi_v1_errors());
  auto sinks = json::parse(openapi_sinks_paths()).as_object();
  add_error_responses(sinks, openapi_v1_errors());
  auto cluster = json::parse(openapi_cluster_paths()).as_object();
  add_error_responses(cluster, openapi_v1_errors());
  auto schedules = json::parse(openapi_schedules_paths()).as_object();
  add_error_responses(schedules, openapi_v1_errors());
  auto tasks = json::parse(openapi_tasks_paths()).as_object();
  add_error_responses(tasks, openapi_v1_errors());
  auto osb = json::parse(openapi_osb_paths()).as_object();
  add_error_responses(osb, openapi_osb_errors());
  for (auto* part : {&front, &sinks, &cluster, &schedules, &tasks, &osb})
    for (auto& kv : *part)
      paths[kv.key()] = kv.value();
}

void add_error_components(json::object& responses, const openapi_errors& errors) {
  for (auto& e : errors.responses)
    responses[e.name] = error_response(e, errors.schema);
}

} // namespace

const json::value& openapi_document() {
  static const json::value doc = [] {
    json::object d;
    d["openapi"] = "3.0.3";
    d["info"] = json::object{
      {"title", "stepwise"},
      {"version", STEPWISE_VERSION},
      {"description", "Durable workflow engine. Errors are {\"error\":{\"code\",\"message\"}}. "
                      "Any method a path does not serve is 405 with Allow. Times are RFC "
                      "3339 UTC with milliseconds. Unknown body fields and query parameters "
                      "are rejected (400). The Infrastructure API (/api/infrastructure/*, "
                      "mounted when a driver is configured) follows Ignition instead: errors "
                      "are {\"localizedMessage\", \"status\"} and unknown fields are "
                      "ignored."}};
    auto paths = json::parse(openapi_paths()).as_object();
    add_error_responses(paths, openapi_v1_errors());
    auto infra_paths = json::parse(openapi_infrastructure_paths()).as_object();
    add_error_responses(infra_paths, openapi_infrastructure_errors());
    for (auto& kv : infra_paths)
      paths[kv.key()] = kv.value();
    merge_front_doors(paths);
    auto components = json::parse(openapi_components()).as_object();
    auto& schemas = components["schemas"].as_object();
    auto infra_schemas = json::parse(openapi_infrastructure_schemas()).as_object();
    for (auto& kv : infra_schemas)
      schemas[kv.key()] = kv.value();
    for (auto text :
         {openapi_front_schemas(), openapi_sinks_schemas(), openapi_cluster_schemas(),
          openapi_schedules_schemas(), openapi_tasks_schemas(), openapi_osb_schemas()}) {
      auto more = json::parse(text);
      for (auto& kv : more.as_object())
        schemas[kv.key()] = kv.value();
    }
    auto& parameters = components["parameters"].as_object();
    auto osb_parameters = json::parse(openapi_osb_parameters());
    for (auto& kv : osb_parameters.as_object())
      parameters[kv.key()] = kv.value();
    json::object responses;
    add_error_components(responses, openapi_v1_errors());
    add_error_components(responses, openapi_infrastructure_errors());
    add_error_components(responses, openapi_osb_errors());
    components["responses"] = std::move(responses);
    d["paths"] = std::move(paths);
    d["components"] = std::move(components);
    add_openapi_security(d);
    return json::value(std::move(d));
  }();
  return doc;
}

void add_openapi_routes(router& r, const route_context&) {
  const router* rp = &r;
  r.add("GET", "/api/v1/openapi.json", [rp](request& rq, server_response& res) {
    if (auto err = query{rq.raw.params}.only({}))
      return rp->write(rq.raw.path, res, *err);
    static const std::string text = boost::json::serialize(openapi_document());
    res.status = 200;
    res.set_content(text, "application/json");
  });
}

} // namespace stepwise::http
