// The `components` of our OpenAPI document: schemas, parameters and the
// error answers of /api/v1. Kept apart from the paths so that each file
// stays readable.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_components() {
  return R"json({
  "schemas": {
    "Error": {
      "type": "object", "required": ["error"],
      "properties": {"error": {"type": "object", "required": ["code", "message"],
        "properties": {
          "code": {"type": "string", "description": "Stable, snake_case: malformed_json, invalid_argument, unknown_workflow, unauthorized, forbidden, not_found, method_not_allowed, invalid_state, idempotency_conflict, payload_too_large, unsupported_media_type, header_too_large, too_many_waiters, gone, shutting_down, store_failure, overloaded, timeout, secret_key, internal_error."},
          "message": {"type": "string", "description": "Names what was wrong."},
          "horizon": {"type": "integer", "description": "gone only: the retention horizon, the highest event seq retention removed. Events after it are all kept: read again from after=horizon (after=0 starts there too)."}}}}
    },
    "Time": {"type": "string", "format": "date-time", "description": "RFC 3339 UTC with milliseconds, e.g. 2026-11-22T07:40:00.123Z."},
    "OperationState": {"type": "string", "enum": ["pending", "in_progress", "waiting", "succeeded", "failed", "canceled", "compensating", "paused"]},
    "StepState": {"type": "string", "enum": ["pending", "running", "waiting", "succeeded", "failed", "skipped", "incomplete"], "description": "waiting: the operation waits on this step (a sleep, a retry that is due later, or a wait for a signal or a watched task); running: an attempt is under way."},
    "StepRecord": {
      "type": "object",
      "required": ["name", "weight", "state", "attempts", "first_attempt_at", "last_attempt_at", "next_attempt_at", "duration_ms", "last_error", "compensation"],
      "properties": {
        "name": {"type": "string"}, "weight": {"type": "integer"},
        "state": {"$ref": "#/components/schemas/StepState"},
        "attempts": {"type": "integer"},
        "first_attempt_at": {"type": "string", "format": "date-time", "nullable": true},
        "last_attempt_at": {"type": "string", "format": "date-time", "nullable": true},
        "next_attempt_at": {"type": "string", "format": "date-time", "nullable": true},
        "duration_ms": {"type": "integer"},
        "last_error": {"type": "string", "nullable": true},
        "compensation": {"type": "string", "enum": ["running", "waiting", "succeeded", "failed"], "nullable": true, "description": "Sagas: the state of the step's compensation; null until it starts."}}
    },
    "Operation": {
      "type": "object",
      "required": ["id", "workflow", "version", "state", "input", "data", "error", "created_at", "updated_at", "deadline", "steps", "signals", "key", "blocked_by", "pause_requested", "parent_id", "schedule_id", "idempotency_key", "labels", "owner"],
      "properties": {
        "id": {"type": "string", "description": "Opaque."},
        "workflow": {"type": "string"},
        "version": {"type": "integer", "description": "The definition version the operation started on; it runs on it to the end, whatever versions are registered later. If a process resumes it without that version registered, the operation fails with the error \"unknown workflow 'NAME' version V: not registered in this process (registered: ...)\"."},
        "state": {"$ref": "#/components/schemas/OperationState"},
        "input": {"type": "object", "description": "As given, except values at the workflow's secret paths, shown as \"***\" (for a version no longer registered: the secret paths of every registered version of its name)."},
        "data": {"type": "object", "description": "Data the steps persisted."},
        "error": {"type": "string", "nullable": true, "description": "Why it failed. Secret values (input paths, secret overrides) are shown as ***."},
        "created_at": {"$ref": "#/components/schemas/Time"},
        "updated_at": {"$ref": "#/components/schemas/Time"},
        "deadline": {"type": "string", "format": "date-time", "nullable": true},
        "steps": {"type": "array", "items": {"$ref": "#/components/schemas/StepRecord"}},
        "signals": {"type": "array", "description": "Signals received, oldest first (payloads are not shown: a wait step puts them in the data).", "items": {"$ref": "#/components/schemas/SignalRecord"}},
        "key": {"type": "string", "nullable": true, "description": "The serialization key taken from the input, if the workflow declares one: operations with the same key run one at a time, in creation order."},
        "blocked_by": {"type": "string", "nullable": true, "description": "While queued (pending): what it waits for, an operation id or limit:WORKFLOW."},
        "pause_requested": {"type": "boolean", "description": "A pause was asked for while an attempt ran: the operation pauses when that attempt ends."},
        "parent_id": {"type": "string", "nullable": true, "description": "The operation whose step started this one; null for none."},
        "schedule_id": {"type": "string", "nullable": true, "description": "The schedule whose fire started this one; null for none."},
        "idempotency_key": {"type": "string", "nullable": true, "description": "The key it was started with; null for none (GET /api/v1/operations?idempotency_key=K finds it)."},
        "labels": {"$ref": "#/components/schemas/Labels"},
        "owner": {"type": "string", "nullable": true, "description": "The id of the server that drives it (GET /api/v1/cluster lists them), when several servers share a PostgreSQL store; null when it has ended, when no live server holds it yet (its server died and none has taken it over), and on a store of one server."},
        "children": {"type": "object", "description": "Only in the answer about one operation (GET /api/v1/operations/{id}): how many child operations its steps started (ctx.start_child), in all and in each state that has any; GET /api/v1/operations?parent=ID lists them.", "required": ["total"], "properties": {"total": {"type": "integer"}}, "additionalProperties": {"type": "integer"}}}
    },
    "SignalRecord": {
      "type": "object", "required": ["name", "signal_id", "received_at", "consumed_by"],
      "properties": {
        "name": {"type": "string"}, "signal_id": {"type": "string"},
        "received_at": {"$ref": "#/components/schemas/Time"},
        "consumed_by": {"type": "string", "nullable": true, "description": "The wait step it ended; null while none took it."}}
    },
    "SignalBody": {
      "type": "object", "additionalProperties": true,
      "description": "The payload. A string signal_id, if present, is taken out of it: the sender's id for the signal, so that a repeat is a no-op.",
      "properties": {"signal_id": {"type": "string", "minLength": 1, "maxLength": 255}}
    },
    "RetryRequest": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "input": {"type": "object", "additionalProperties": true, "description": "A JSON merge patch (RFC 7396) on the operation's input: null removes a member, an object merges, anything else replaces."},
        "from_step": {"type": "string", "minLength": 1, "description": "Run this step and every step after it again."}}
    },
    "SkipRequest": {
      "type": "object", "required": ["step", "reason"], "additionalProperties": false,
      "properties": {
        "step": {"type": "string", "minLength": 1, "description": "The failed, paused or waiting step to skip."},
        "reason": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "Why; kept in the step_skipped event."}}
    },
    "StartRequest": {
      "type": "object", "required": ["workflow", "input"], "additionalProperties": false,
      "properties": {
        "workflow": {"type": "string", "minLength": 1},
        "version": {"type": "integer", "minimum": 1, "nullable": true, "description": "Default: the newest registered version."},
        "input": {"type": "object"},
        "idempotency_key": {"type": "string", "minLength": 1, "maxLength": 255, "nullable": true, "description": "The same key with the same request again answers 200 with the same operation; with a different request 409."},
        "deadline": {"type": "string", "format": "date-time", "nullable": true},
        "labels": {"$ref": "#/components/schemas/Labels"}}
    },
    "Labels": {
      "type": "object", "maxProperties": 16, "propertyNames": {"pattern": "^[a-z0-9_.-]{1,63}$"},
      "additionalProperties": {"type": "string", "maxLength": 256},
      "description": "Labels to find the operation by (GET /api/v1/operations?label=key=value). Those of the start request, plus what its workflow takes from the input (provision_runtime and deprovision_runtime: runtime, instance_id, location), parent (a child operation) and schedule (a scheduled one). At most 16 in a request, keys of 1 to 63 characters a-z 0-9 _ . -, values up to 256 bytes; 400 otherwise."
    },
    "OperationPage": {
      "type": "object", "required": ["items", "next_cursor"],
      "properties": {
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Operation"}},
        "next_cursor": {"type": "string", "nullable": true, "description": "null on the last page."}}
    },
    "Event": {
      "type": "object", "required": ["seq", "time", "operation_id", "type"],
      "additionalProperties": true,
      "description": "infrastructure_task_completed events also carry infrastructure_id, request_id, status, failure_details and outputs; schedule_fired carries schedule and fire_time; schedule_skipped (operation_id empty) schedule, fire_time (the last fire skipped), count and reason (overlap or missed); schedule_changed (operation_id empty) schedule and change (created, replaced, deleted, paused or resumed).",
      "properties": {
        "seq": {"type": "integer", "description": "Strictly increasing, never reused."},
        "time": {"$ref": "#/components/schemas/Time"},
        "operation_id": {"type": "string"},
        "type": {"type": "string", "enum": ["operation_created", "step_started", "step_succeeded", "step_retry_scheduled", "step_failed", "step_timed_out", "step_skipped", "step_incomplete", "compensation_started", "compensation_succeeded", "compensation_failed", "operation_waiting", "operation_succeeded", "operation_failed", "operation_canceled", "infrastructure_task_completed", "signal_received", "operation_queued", "operation_paused", "operation_resumed", "operation_retried", "schedule_fired", "schedule_skipped", "schedule_changed", "input_patched", "steps_reset"]},
        "step": {"type": "string"}, "attempt": {"type": "integer"},
        "state": {"type": "string"}, "error": {"type": "string"},
        "by": {"type": "string", "description": "Who caused it, on the events a request caused (start, cancel, retry, pause, resume, signal, schedule changes): the name of the caller's API token (--auth-tokens), anonymous on a server without tokens, osb:USER for the service broker (its basic-auth user), schedule:ID for a schedule's own fires, parent:ID for a parent's children (and its cancel of them). Absent on the steps' own events. Never a secret."}}
    },
    "EventPage": {
      "type": "object", "required": ["items", "next_after"],
      "properties": {
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
        "next_after": {"type": "integer", "description": "Pass as `after` to get the next events."}}
    },
    "RetryPolicy": {
      "type": "object", "nullable": true,
      "required": ["initial_interval_ms", "multiplier", "max_interval_ms", "jitter", "max_attempts", "max_elapsed_ms", "when_exhausted"],
      "properties": {
        "initial_interval_ms": {"type": "integer"}, "multiplier": {"type": "number"},
        "max_interval_ms": {"type": "integer"}, "jitter": {"type": "number"},
        "max_attempts": {"type": "integer", "description": "0: unbounded."},
        "max_elapsed_ms": {"type": "integer", "nullable": true},
        "when_exhausted": {"type": "string", "enum": ["fail", "pause"], "description": "What running out of attempts does: fail the step (and the operation), or pause the operation at the step until resumed."}}
    },
    "WorkflowStep": {
      "type": "object",
      "required": ["name", "weight", "kind", "signal", "queue", "sleep_ms", "timeout_ms", "best_effort", "conditional", "compensable", "produces_transient", "uses_transient", "retry_policy"],
      "properties": {
        "name": {"type": "string"}, "weight": {"type": "integer"},
        "kind": {"type": "string", "enum": ["run", "async", "actor", "sleep", "wait", "task"], "description": "run: a blocking body on a worker; async: a body that waits holding no thread; actor: a step actor of the host; sleep: a durable sleep; wait: waits for a signal and/or a task a monitor follows; task: a worker that polls its queue carries it out (/api/v1/tasks)."},
        "queue": {"type": "string", "nullable": true, "description": "The queue of a task step's workers."},
        "signal": {"type": "string", "nullable": true, "description": "wait steps: the signal that ends the wait."},
        "sleep_ms": {"type": "integer", "nullable": true},
        "timeout_ms": {"type": "integer", "nullable": true},
        "best_effort": {"type": "boolean"}, "conditional": {"type": "boolean"},
        "compensable": {"type": "boolean", "description": "The step has a compensation (sagas)."},
        "produces_transient": {"type": "boolean", "description": "The step sets transient values (e.g. provisioning overrides), which are never stored: it runs again, unrecorded, before a step that uses them whenever the operation goes on in a new process or after passivation."},
        "uses_transient": {"type": "boolean", "description": "The step reads transient values (e.g. a create request that carries the overrides)."},
        "retry_policy": {"$ref": "#/components/schemas/RetryPolicy"}}
    },
    "Workflow": {
      "type": "object", "required": ["name", "version", "source", "definition", "secret_paths", "steps"],
      "properties": {
        "name": {"type": "string"}, "version": {"type": "integer"},
        "source": {"type": "string", "enum": ["built_in", "data"], "description": "built_in: compiled into the server; data: defined through PUT /api/v1/workflows/{name}."},
        "definition": {"type": "object", "nullable": true, "description": "What a workflow defined as data was made from (a WorkflowDefinition); null for a built-in one."},
        "secret_paths": {"type": "array", "items": {"type": "string"}, "description": "JSON pointers into the input whose values are masked."},
        "steps": {"type": "array", "items": {"$ref": "#/components/schemas/WorkflowStep"}}}
    },
    "WorkflowDefinition": {
      "type": "object", "required": ["steps"], "additionalProperties": false,
      "properties": {
        "steps": {"type": "array", "minItems": 1, "maxItems": 200, "items": {"$ref": "#/components/schemas/WorkflowDefinitionStep"}, "description": "In order (ties of weight keep this order)."},
        "key": {"type": "string", "description": "A JSON pointer into the input: operations with the same value run one at a time, in creation order."},
        "limit": {"type": "integer", "minimum": 1, "description": "At most this many operations of the workflow in progress at once; the rest queue."},
        "secrets": {"type": "array", "items": {"type": "string"}, "description": "JSON pointers into the input whose values are secret: sealed in the store, masked in the API, given only to the workers of its tasks."},
        "description": {"type": "string"}}
    },
    "WorkflowDefinitionStep": {
      "type": "object", "required": ["name", "kind"], "additionalProperties": false,
      "description": "task: a worker that polls queue carries it out; sleep: waits duration; signal: waits for signal; child: starts an operation of workflow (version, input) and waits for its end (listed as two steps, NAME and NAME:wait). Fields of another kind are refused.",
      "properties": {
        "name": {"type": "string", "minLength": 1},
        "kind": {"type": "string", "enum": ["task", "sleep", "signal", "child"]},
        "weight": {"type": "integer", "minimum": 1, "description": "Order; default 10 times the position."},
        "queue": {"type": "string", "description": "task: the queue its workers poll."},
        "start_timeout": {"type": "string", "description": "task: fail the attempt when no worker took it within this long, such as 1m."},
        "heartbeat_timeout": {"type": "string", "description": "task: fail the attempt when its worker stays silent this long."},
        "compensate": {"type": "string", "description": "task: the name of a task, on the same queue, that undoes this step; run in reverse order when a later step fails the operation or it is canceled."},
        "duration": {"type": "string", "description": "sleep: how long, such as 10s."},
        "signal": {"type": "string", "description": "signal: the signal's name."},
        "workflow": {"type": "string", "description": "child: the child's workflow."},
        "version": {"type": "integer", "minimum": 1, "description": "child: its version (default the newest)."},
        "input": {"type": "object", "description": "child: its input (default {})."},
        "timeout": {"type": "string", "description": "task, signal, child: the attempt fails after this long (from its start)."},
        "retry": {"type": "object", "additionalProperties": false, "properties": {
          "max_attempts": {"type": "integer", "minimum": 0}, "initial": {"type": "string"}, "multiplier": {"type": "number", "minimum": 1},
          "max": {"type": "string"}, "max_elapsed": {"type": "string"}, "jitter": {"type": "number", "minimum": 0, "maximum": 1}}},
        "best_effort": {"type": "boolean", "description": "When its retries run out the operation goes on."}}
    },
    "WorkflowDetail": {
      "allOf": [{"$ref": "#/components/schemas/Workflow"},
                {"type": "object", "required": ["versions"],
                 "properties": {"versions": {"type": "array", "items": {"type": "integer"}}}}]
    },
    "WorkflowList": {
      "type": "object", "required": ["items"],
      "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Workflow"}}}
    },
    "Health": {"type": "object", "required": ["status"], "properties": {"status": {"type": "string", "enum": ["ok"]}}},
    "Ready": {"type": "object", "required": ["status", "store"],
              "properties": {"status": {"type": "string", "enum": ["ready"]}, "store": {"type": "string"}}}
  },
  "parameters": {
    "OperationId": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
    "ScheduleId": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
    "TaskToken": {"name": "token", "in": "path", "required": true, "description": "The token of the task, as a poll returned it.", "schema": {"type": "string"}}
  }
})json";
}

const openapi_errors& openapi_v1_errors() {
  static const openapi_errors errors{
    "Error",
    {{{400},
      "BadRequest",
      "Malformed JSON, a missing, wrong-typed or unknown field, an unknown "
      "workflow, or a malformed query parameter.",
      openapi_header::none},
     {{404}, "NotFound", "No such resource.", openapi_header::none},
     {{405},
      "MethodNotAllowed",
      "The path does not serve this method; the Allow header lists those it "
      "does.",
      openapi_header::allow},
     {{409},
      "Conflict",
      "The operation's state does not allow this, the idempotency key was "
      "used with a different request, a schedule of that id exists with "
      "another definition, or a task's token names an attempt that is no "
      "longer current (stale_task).",
      openapi_header::none},
     {{410},
      "Gone",
      "gone: after is below the retention horizon (the error's horizon "
      "field): retention removed events after it, which this reader may "
      "never have seen. Read again from after=horizon; after=0 (the log's "
      "start) starts there and is never 410.",
      openapi_header::none},
     {{413}, "PayloadTooLarge", "The body exceeds the configured limit.", openapi_header::none},
     {{415},
      "UnsupportedMediaType",
      "The Content-Type is not JSON (a missing Content-Type is read as JSON).",
      openapi_header::none},
     {{503},
      "Unavailable",
      "Shutting down (shutting_down: after SIGTERM the server drains: it "
      "takes no new operations and /readyz says not ready while running "
      "steps finish; start the operation on another server), the store fails (store_failure: the "
      "message says why; "
      "nothing of the request was written), too much waits to be written "
      "(overloaded), the engine did not answer in time (timeout: a start may "
      "still happen: retry it with the same idempotency_key), or too "
      "many waiting requests. Retry after the Retry-After header.",
      openapi_header::retry_after}}};
  return errors;
}

} // namespace stepwise::http
