// The outbox's part of our OpenAPI document: `GET /api/v1/sinks`.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_sinks_paths() {
  return R"json({
  "/api/v1/sinks": {
    "get": {
      "summary": "The outbox's sinks (completion messages to webhooks and Kafka): destination without credentials, filter, cursor, lag, last error and delivery, and which process delivers each.",
      "operationId": "listSinks",
      "responses": {
        "200": {"description": "Every configured sink (none without an outbox).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SinkList"}}}},
        "errors": [503]}
    }
  }
})json";
}

const char* openapi_sinks_schemas() {
  return R"json({
  "SinkList": {
    "type": "object", "required": ["items"], "additionalProperties": false,
    "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Sink"}}}
  },
  "Sink": {
    "type": "object", "additionalProperties": false,
    "required": ["name", "kind", "destination", "filter", "cursor", "lag", "delivered", "failed", "last_error", "last_delivery_at", "holder", "held_here"],
    "properties": {
      "name": {"type": "string"},
      "kind": {"type": "string", "enum": ["webhook", "kafka"]},
      "destination": {"type": "string", "description": "The webhook URL without user information and query, or BROKERS/TOPIC."},
      "filter": {"type": "object", "required": ["events", "workflows"], "properties": {
        "events": {"type": "array", "items": {"type": "string"}, "description": "Event types delivered; empty: all."},
        "workflows": {"type": "array", "items": {"type": "string"}, "description": "Workflows whose events are delivered; empty: all."}}},
      "cursor": {"type": "integer", "description": "Every event with seq up to it is delivered (or filtered out)."},
      "lag": {"type": "integer", "description": "Events of the log after the cursor."},
      "delivered": {"type": "integer", "description": "Events this process delivered since it started."},
      "failed": {"type": "integer", "description": "Failed delivery attempts of this process since it started."},
      "last_error": {"type": "string", "nullable": true},
      "last_delivery_at": {"type": "string", "format": "date-time", "nullable": true},
      "holder": {"type": "string", "nullable": true, "description": "The process delivering the sink (host:pid:random)."},
      "held_here": {"type": "boolean"}}
  }
})json";
}

} // namespace stepwise::http
