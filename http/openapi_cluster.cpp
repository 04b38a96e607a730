// The cluster's part of our OpenAPI document: `GET /api/v1/cluster`.

#include "http/openapi.hpp"

namespace stepwise::http {

const char* openapi_cluster_paths() {
  return R"json({
  "/api/v1/cluster": {
    "get": {
      "summary": "The servers sharing this server's store: on PostgreSQL, every server whose lease is live (any of them takes any request, for any operation); on SQLite, this server alone.",
      "operationId": "getCluster",
      "responses": {
        "200": {"description": "The servers, oldest first.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Cluster"}}}},
        "errors": [503]}
    }
  }
})json";
}

const char* openapi_cluster_schemas() {
  return R"json({
  "Cluster": {
    "type": "object", "required": ["self", "servers"], "additionalProperties": false,
    "properties": {
      "self": {"type": "string", "description": "The id of the server that answered."},
      "servers": {"type": "array", "items": {"$ref": "#/components/schemas/Server"}}}
  },
  "Server": {
    "type": "object", "additionalProperties": false,
    "required": ["id", "url", "version", "started_at", "renewed_at", "lease_expires_at", "operations", "self"],
    "properties": {
      "id": {"type": "string", "description": "host:pid:random on PostgreSQL (new at every start, and after a lost lease); what operations show as their owner."},
      "url": {"type": "string", "nullable": true, "description": "Where its clients reach it (--advertise-url, else made from --listen); null when not known."},
      "version": {"type": "string", "nullable": true, "description": "Its build."},
      "started_at": {"$ref": "#/components/schemas/Time"},
      "renewed_at": {"type": "string", "format": "date-time", "nullable": true, "description": "When its lease was last renewed; null for a server alone on its store (SQLite), which holds none."},
      "lease_expires_at": {"type": "string", "format": "date-time", "nullable": true, "description": "Unless renewed before, others take its operations over after this (database clock); null for a server alone on its store."},
      "operations": {"type": "integer", "description": "Live operations it drives (running, waiting and sleeping ones)."},
      "self": {"type": "boolean", "description": "Whether it is the server that answered."}}
  }
})json";
}

} // namespace stepwise::http
