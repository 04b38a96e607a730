// The schedules' part of our OpenAPI document: `/api/v1/schedules` and its
// schemas, merged into the document by openapi.cpp.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_schedules_paths() {
  return R"json({
  "/api/v1/schedules": {
    "post": {
      "summary": "Create a schedule. Each fire starts one operation of its workflow with its input and the idempotency key schedule:ID:FIRE_TIME, so a fire happens once across restarts and processes; events schedule_fired (with the operation) and schedule_skipped (fires not started: overlap or missed). The same definition again answers 200 with the schedule; another definition under the same id 409.",
      "operationId": "createSchedule",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScheduleDefinition"}}}},
      "responses": {
        "201": {"description": "Created.", "headers": {"Location": {"schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "200": {"description": "A schedule with this id and this definition exists: nothing was written.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "errors": [400, 409, 413, 415, 503]}
    },
    "get": {
      "summary": "List every schedule, by id.",
      "operationId": "listSchedules",
      "responses": {
        "200": {"description": "The schedules.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScheduleList"}}}},
        "errors": [400, 503]}
    }
  },
  "/api/v1/schedules/{id}": {
    "get": {
      "summary": "Get a schedule with its state and next fire.",
      "operationId": "getSchedule",
      "parameters": [{"$ref": "#/components/parameters/ScheduleId"}],
      "responses": {
        "200": {"description": "The schedule.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "errors": [400, 404, 503]}
    },
    "put": {
      "summary": "Replace the schedule's definition, from its next fire on (its state and counts stay). The body's id may be left out; given, it must be the path's.",
      "operationId": "replaceSchedule",
      "parameters": [{"$ref": "#/components/parameters/ScheduleId"}],
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScheduleReplacement"}}}},
      "responses": {
        "200": {"description": "The schedule as written.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "errors": [400, 404, 409, 413, 415, 503]}
    },
    "delete": {
      "summary": "Delete the schedule; the operations it started stay. The body may be empty or {}.",
      "operationId": "deleteSchedule",
      "parameters": [{"$ref": "#/components/parameters/ScheduleId"}],
      "responses": {
        "200": {"description": "Deleted; the schedule as it was.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "errors": [400, 404, 503]}
    }
  },
  "/api/v1/schedules/{id}/pause": {
    "post": {
      "summary": "Pause the schedule: no fire until it is resumed. The body may be empty or {}.",
      "operationId": "pauseSchedule",
      "parameters": [{"$ref": "#/components/parameters/ScheduleId"}],
      "responses": {
        "200": {"description": "Paused (next_fire is null).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "errors": [400, 404, 415, 503]}
    }
  },
  "/api/v1/schedules/{id}/resume": {
    "post": {
      "summary": "Resume a paused schedule from now on: the fires missed while it was paused are not caught up. The body may be empty or {}.",
      "operationId": "resumeSchedule",
      "parameters": [{"$ref": "#/components/parameters/ScheduleId"}],
      "responses": {
        "200": {"description": "Resumed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schedule"}}}},
        "errors": [400, 404, 415, 503]}
    }
  },
  "/api/v1/schedules/{id}/trigger": {
    "post": {
      "summary": "Fire the schedule now, once, whatever its overlap policy and pause say: one operation starts, with schedule_id set. The body may be empty or {}.",
      "operationId": "triggerSchedule",
      "parameters": [{"$ref": "#/components/parameters/ScheduleId"}],
      "responses": {
        "202": {"description": "The operation the fire started.", "headers": {"Location": {"schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "errors": [400, 404, 415, 503]}
    }
  }
})json";
}

const char* openapi_schedules_schemas() {
  return R"json({
  "ScheduleFields": {
    "type": "object", "additionalProperties": false,
    "description": "A schedule's definition. Exactly one of cron and every. Fields the engine writes (revision, fired, ...) are refused (400).",
    "properties": {
      "id": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"},
      "workflow": {"type": "string", "minLength": 1},
      "version": {"type": "integer", "minimum": 1, "nullable": true, "description": "Default: the newest version registered when each fire starts."},
      "input": {"type": "object", "description": "The input of every operation it starts."},
      "cron": {"type": "string", "nullable": true, "description": "Five fields in time_zone: minute hour day-of-month month day-of-week (lists, ranges, steps, names: \"*/15 9-17 * * mon-fri\"). A local time skipped by a clock change fires at the change; a repeated one once."},
      "every": {"type": "string", "nullable": true, "description": "A duration of at least 1s, such as 30s, 5m, 1h30m, 1d: fires at its multiples since the Unix epoch, plus offset."},
      "offset": {"type": "string", "nullable": true, "description": "With every: a duration from 0s to under every added to each fire time (every 1h with offset 15m fires at a quarter past each hour), so that schedules of one period spread over it. Default 0s."},
      "time_zone": {"type": "string", "nullable": true, "description": "An IANA zone (Europe/Berlin) of cron. Default UTC."},
      "overlap": {"type": "string", "enum": ["skip", "queue", "allow"], "nullable": true, "description": "A fire while the previous fire's operation runs: skip it (default; schedule_skipped, reason overlap), queue it until that one ends, or allow it to run alongside."},
      "catch_up": {"type": "string", "enum": ["none", "latest", "all"], "nullable": true, "description": "Fires missed (the server was down, or more than a minute late): skip them (default), fire the latest of them, or fire each within catch_up_window."},
      "catch_up_window": {"type": "string", "nullable": true, "description": "A duration; default 1d."},
      "paused": {"type": "boolean", "nullable": true, "description": "Default false."},
      "end_at": {"type": "string", "format": "date-time", "nullable": true, "description": "No fire after this time."}}
  },
  "ScheduleDefinition": {
    "allOf": [{"$ref": "#/components/schemas/ScheduleFields"},
              {"type": "object", "required": ["id", "workflow", "input"]}]
  },
  "ScheduleReplacement": {
    "allOf": [{"$ref": "#/components/schemas/ScheduleFields"},
              {"type": "object", "required": ["workflow", "input"]}]
  },
  "Schedule": {
    "type": "object", "additionalProperties": false,
    "required": ["id", "workflow", "version", "input", "cron", "every", "offset", "time_zone", "overlap", "catch_up", "catch_up_window", "paused", "end_at", "revision", "created_at", "updated_at", "next_fire", "last_operation", "last_fire", "fired", "skipped"],
    "properties": {
      "id": {"type": "string"},
      "workflow": {"type": "string"},
      "version": {"type": "integer", "nullable": true},
      "input": {"type": "object", "description": "As given, except values at the workflow's secret paths, shown as \"***\"."},
      "cron": {"type": "string", "nullable": true},
      "every": {"type": "string", "nullable": true, "description": "A duration such as 1m30s."},
      "offset": {"type": "string", "nullable": true, "description": "With every: added to each multiple of it; null with cron."},
      "time_zone": {"type": "string"},
      "overlap": {"type": "string", "enum": ["skip", "queue", "allow"]},
      "catch_up": {"type": "string", "enum": ["none", "latest", "all"]},
      "catch_up_window": {"type": "string"},
      "paused": {"type": "boolean"},
      "end_at": {"type": "string", "format": "date-time", "nullable": true},
      "revision": {"type": "integer", "description": "1 on create, +1 per write."},
      "created_at": {"$ref": "#/components/schemas/Time"},
      "updated_at": {"$ref": "#/components/schemas/Time"},
      "next_fire": {"type": "string", "format": "date-time", "nullable": true, "description": "null when paused or when it fires no more (end_at passed, or a cron that never matches)."},
      "last_operation": {"type": "string", "nullable": true, "description": "The operation the last fire started (GET /api/v1/operations?schedule=ID lists them all)."},
      "last_fire": {"type": "string", "format": "date-time", "nullable": true, "description": "The fire time of the last fire that started an operation."},
      "fired": {"type": "integer", "description": "Fires that started an operation."},
      "skipped": {"type": "integer", "description": "Fires skipped (overlap or missed)."}}
  },
  "ScheduleList": {
    "type": "object", "required": ["items"], "additionalProperties": false,
    "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Schedule"}}}
  }
})json";
}

} // namespace stepwise::http
