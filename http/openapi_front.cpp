// The front doors in our OpenAPI document: the console's routes, the
// console's reads (an operation's events, the newest seq), and who may call
// what (bearer tokens, the broker's basic credentials), derived from the
// same rule the server applies (access_for).

#include "http/auth.hpp"
#include "http/openapi.hpp"

namespace stepwise::http {

namespace json = boost::json;

const char* openapi_front_paths() {
  return R"json({
  "/": {"get": {"summary": "Redirects to the web console (/ui/).", "operationId": "root",
    "responses": {"302": {"description": "To /ui/.", "headers": {"Location": {"schema": {"type": "string"}}}}}}},
  "/ui": {"get": {"summary": "Redirects to /ui/.", "operationId": "consoleRedirect",
    "responses": {"302": {"description": "To /ui/.", "headers": {"Location": {"schema": {"type": "string"}}}}}}},
  "/ui/": {"get": {"summary": "The web console. It asks for a bearer token when the server has tokens, and sends it in the Authorization header of every call (also of the event stream, read with fetch).", "operationId": "console",
    "responses": {"200": {"description": "The page.", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
  "/ui/{asset}": {"get": {"summary": "A script or style sheet of the console.", "operationId": "consoleAsset",
    "parameters": [{"name": "asset", "in": "path", "required": true, "schema": {"type": "string"}}],
    "responses": {
      "200": {"description": "The file.", "content": {"text/javascript": {"schema": {"type": "string"}}, "text/css": {"schema": {"type": "string"}}}},
      "errors": [400, 404]}}},
  "/api/v1/operations/{id}/events": {"get": {
    "summary": "The operation's events, oldest first (its timeline), a page at a time: complete, from the store's index by operation.",
    "operationId": "operationEvents",
    "parameters": [{"$ref": "#/components/parameters/OperationId"},
      {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0, "default": 0}, "description": "Only events with a greater seq: next_after of the previous page."},
      {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 1000}}],
    "responses": {
      "200": {"description": "The events.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OperationEvents"}}}},
      "errors": [400, 404, 503]}}},
  "/api/v1/events/latest": {"get": {
    "summary": "The seq of the newest event (0 for an empty log): where a client's stream starts to see only new events.",
    "operationId": "latestEvent",
    "responses": {
      "200": {"description": "The seq.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LatestEvent"}}}},
      "errors": [400, 503]}}}
})json";
}

const char* openapi_front_schemas() {
  return R"json({
  "OperationEvents": {
    "type": "object", "required": ["items", "next_after", "last_seq"],
    "properties": {
      "items": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
      "next_after": {"type": "integer", "nullable": true, "description": "The after of the next page; null on the last page."},
      "last_seq": {"type": "integer", "description": "The newest seq of the log, read before the page; stream after it for what follows."}}
  },
  "LatestEvent": {"type": "object", "required": ["seq"], "properties": {"seq": {"type": "integer", "minimum": 0}}}
})json";
}

namespace {

json::object ref_to(const std::string& name) {
  return {{"$ref", "#/components/responses/" + name}};
}

json::object auth_error(const char* description, const char* schema, bool challenge) {
  json::object r{{"description", description}};
  if (challenge)
    r["headers"] = json::object{
      {"WWW-Authenticate", json::object{{"schema", json::object{{"type", "string"}}}}}};
  r["content"] = json::object{
    {"application/json",
     json::object{
       {"schema", json::object{{"$ref", std::string("#/components/schemas/") + schema}}}}}};
  return r;
}

} // namespace

void add_openapi_security(json::object& doc) {
  auto& components = doc["components"].as_object();
  components["securitySchemes"] = json::object{
    {"bearer", json::object{{"type", "http"},
                            {"scheme", "bearer"},
                            {"description", "A token of the --auth-tokens file: read (GET routes, "
                                            "event streams) or write (everything). Needed only "
                                            "when the server has tokens."}}},
    {"broker", json::object{{"type", "http"},
                            {"scheme", "basic"},
                            {"description", "The service broker's --osb-credentials."}}}};
  auto& responses = components["responses"].as_object();
  responses["Unauthorized"] =
    auth_error("No bearer token, or not a valid one (WWW-Authenticate: Bearer realm=\"stepwise\").",
               "Error", true);
  responses["Forbidden"] = auth_error(
    "The token's role does not allow the route: a read token on a route that changes "
    "something, a worker token outside the task routes (/api/v1/tasks/), a read token on "
    "those.",
    "Error", false);
  responses["InfrastructureUnauthorized"] =
    auth_error("No bearer token, or not a valid one.", "InfrastructureErrorResponse", true);
  responses["InfrastructureForbidden"] =
    auth_error("A read token on a route that needs a write token, or a worker token.",
               "InfrastructureErrorResponse", false);
  for (auto& path : doc["paths"].as_object()) {
    std::string p(path.key());
    bool infra = p.rfind("/api/infrastructure/", 0) == 0;
    for (auto& op : path.value().as_object()) {
      std::string method(op.key());
      for (auto& c : method)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      auto& o = op.value().as_object();
      auto& rs = o["responses"].as_object();
      switch (access_for(method, p, false)) {
        case access::open:
          o["security"] = json::array{};
          break;
        case access::broker:
          o["security"] = json::array{json::object{{"broker", json::array{}}}};
          break;
        case access::write:
        case access::read:
        case access::worker:
          // A worker's token is refused outside the task routes, a read
          // token on the rest: every route may answer 403.
          o["security"] = json::array{json::object{{"bearer", json::array{}}}};
          rs["401"] = ref_to(infra ? "InfrastructureUnauthorized" : "Unauthorized");
          rs["403"] = ref_to(infra ? "InfrastructureForbidden" : "Forbidden");
          break;
      }
    }
  }
}

} // namespace stepwise::http
