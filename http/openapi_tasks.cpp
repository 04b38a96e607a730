// The task routes' part of our OpenAPI document: what workers call.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_tasks_paths() {
  return R"json({
  "/api/v1/tasks/poll": {
    "post": {
      "summary": "Takes up to max ready tasks of a queue, oldest first; when none is ready, waits up to wait for one (a long poll that holds no thread on the server) and answers an empty list after it. A task goes to one worker at a time. Needs a worker or write token.",
      "operationId": "pollTasks",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskPoll"}}}},
      "responses": {
        "200": {"description": "The tasks taken (none after the wait).", "content": {"application/json": {"schema": {"type": "object", "required": ["tasks"], "additionalProperties": false, "properties": {"tasks": {"type": "array", "items": {"$ref": "#/components/schemas/Task"}}}}}}},
        "errors": [400, 413, 415, 503]}
    }
  },
  "/api/v1/tasks/{token}/heartbeat": {
    "post": {
      "summary": "Tells the task's attempt that its worker still works on it (its heartbeat timeout starts again); the answer says whether the worker may stop. Needs a worker or write token.",
      "operationId": "heartbeatTask",
      "parameters": [{"$ref": "#/components/parameters/TaskToken"}],
      "requestBody": {"required": false, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskHeartbeat"}}}},
      "responses": {
        "200": {"description": "Still current.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskHeartbeatResult"}}}},
        "errors": [400, 409, 413, 415, 503]}
    }
  },
  "/api/v1/tasks/{token}/complete": {
    "post": {
      "summary": "Completes the task's attempt: data is merged into the operation's data and the operation goes on. 409 stale_task when the attempt is no longer current (it timed out, was retried, canceled, paused, or answered before): nothing changes then. Needs a worker or write token.",
      "operationId": "completeTask",
      "parameters": [{"$ref": "#/components/parameters/TaskToken"}],
      "requestBody": {"required": false, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskCompletion"}}}},
      "responses": {
        "200": {"description": "Taken: the operation applies it.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskAccepted"}}}},
        "errors": [400, 409, 413, 415, 503]}
    }
  },
  "/api/v1/tasks/{token}/fail": {
    "post": {
      "summary": "Fails the task's attempt: the step's retry policy decides what comes next (after retry_after when given), or the step fails for good with non_retryable. 409 stale_task as for complete. Needs a worker or write token.",
      "operationId": "failTask",
      "parameters": [{"$ref": "#/components/parameters/TaskToken"}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskFailure"}}}},
      "responses": {
        "200": {"description": "Taken: the operation applies it.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TaskAccepted"}}}},
        "errors": [400, 409, 413, 415, 503]}
    }
  },
  "/api/v1/tasks/complete": {
    "post": {
      "summary": "Completes several tasks in one request (a worker that took a batch): each is carried out as its own complete would be, and the answer says per token whether it was taken or, with the error complete would have answered (stale_task), why not. The body is checked whole first: a bad item is a 400 and nothing is carried out. Needs a worker or write token.",
      "operationId": "completeTasks",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["tasks"], "additionalProperties": false, "properties": {"tasks": {"type": "array", "minItems": 1, "maxItems": 100, "items": {"type": "object", "required": ["token"], "additionalProperties": false, "properties": {"token": {"type": "string", "description": "As a poll returned it."}, "data": {"type": "object", "description": "Merged into the operation's data."}}}}}}}}},
      "responses": {
        "200": {"description": "Each answer's fate, in the order given.", "content": {"application/json": {"schema": {"type": "object", "required": ["items"], "additionalProperties": false, "properties": {"items": {"type": "array", "items": {"type": "object", "required": ["token"], "additionalProperties": false, "properties": {"token": {"type": "string"}, "accepted": {"type": "boolean", "enum": [true]}, "error": {"type": "object", "required": ["code", "message"], "additionalProperties": false, "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}}}}}}}},
        "errors": [400, 413, 415, 503]}
    }
  },
  "/api/v1/tasks/queues": {
    "get": {
      "summary": "The task queues this server holds tasks, polls or workers of: ready and taken tasks, the oldest ready task's age, and the workers seen in the last 10 minutes.",
      "operationId": "listTaskQueues",
      "responses": {
        "200": {"description": "The queues, by name.", "content": {"application/json": {"schema": {"type": "object", "required": ["items"], "additionalProperties": false, "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/TaskQueue"}}}}}}},
        "errors": [400, 503]}
    }
  }
})json";
}

const char* openapi_tasks_schemas() {
  return R"json({
  "TaskPoll": {
    "type": "object", "required": ["queue", "worker"], "additionalProperties": false,
    "properties": {
      "queue": {"type": "string", "minLength": 1},
      "worker": {"type": "string", "minLength": 1, "description": "Names the worker in listings."},
      "max": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1},
      "wait": {"type": "string", "description": "How long to wait for a task when none is ready, such as 20s (at most 5m); none answers at once."}}
  },
  "Task": {
    "type": "object", "additionalProperties": false,
    "required": ["token", "operation_id", "workflow", "step", "attempt", "input", "data", "deadline", "heartbeat_timeout", "details", "ready_at"],
    "properties": {
      "token": {"type": "string", "description": "Names this attempt in the worker's heartbeats and answer."},
      "operation_id": {"type": "string"},
      "workflow": {"type": "string"},
      "step": {"type": "string"},
      "attempt": {"type": "integer", "minimum": 1},
      "input": {"type": "object", "description": "The operation's input, secret values included: the worker needs them, and they appear nowhere else."},
      "data": {"type": "object", "description": "The operation's data when the attempt began."},
      "deadline": {"type": "string", "format": "date-time", "nullable": true, "description": "When the attempt times out whatever the worker does."},
      "heartbeat_timeout": {"type": "string", "nullable": true, "description": "The longest the worker may stay silent, such as 10s; null: no heartbeat needed."},
      "details": {"type": "object", "description": "The last heartbeat details of an earlier attempt of this step (kept in the server's memory only)."},
      "ready_at": {"type": "string", "format": "date-time", "description": "When the task became ready in its queue (on the server's clock): how long it waited for a worker."}}
  },
  "TaskHeartbeat": {
    "type": "object", "additionalProperties": false,
    "properties": {"details": {"type": "object", "description": "Progress to hand to the step's next attempt, if there is one."}}
  },
  "TaskHeartbeatResult": {
    "type": "object", "required": ["cancel_requested"], "additionalProperties": false,
    "properties": {"cancel_requested": {"type": "boolean", "description": "The operation no longer waits for this attempt (canceled, paused, or the step timed out): the worker may stop."}}
  },
  "TaskCompletion": {
    "type": "object", "additionalProperties": false,
    "properties": {"data": {"type": "object", "description": "Merged into the operation's data."}}
  },
  "TaskFailure": {
    "type": "object", "required": ["error"], "additionalProperties": false,
    "properties": {
      "error": {"type": "string", "minLength": 1},
      "retry_after": {"type": "string", "description": "When to try again, such as 5s; without it the step's policy decides."},
      "non_retryable": {"type": "boolean", "default": false, "description": "Fails the step for good (its operation compensates or fails)."}}
  },
  "TaskAccepted": {
    "type": "object", "required": ["accepted"], "additionalProperties": false,
    "properties": {"accepted": {"type": "boolean"}}
  },
  "TaskQueue": {
    "type": "object", "additionalProperties": false,
    "required": ["name", "ready", "taken", "pollers", "oldest_ready_at", "oldest_age_ms", "workers"],
    "properties": {
      "name": {"type": "string"},
      "ready": {"type": "integer", "description": "Tasks no worker has taken."},
      "taken": {"type": "integer", "description": "Tasks a worker holds."},
      "pollers": {"type": "integer", "description": "Long polls waiting now."},
      "oldest_ready_at": {"type": "string", "format": "date-time", "nullable": true},
      "oldest_age_ms": {"type": "integer", "nullable": true, "description": "How long the oldest ready task has waited."},
      "workers": {"type": "array", "items": {"type": "object", "required": ["name", "last_seen"], "additionalProperties": false, "properties": {"name": {"type": "string"}, "last_seen": {"$ref": "#/components/schemas/Time"}}}}}
  }
})json";
}

} // namespace stepwise::http
