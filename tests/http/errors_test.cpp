#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

http::server_config small_limits() {
  auto c = http_fixture::default_config();
  c.lim.max_body_bytes = 4096;
  c.lim.max_header_bytes = 4096;
  return c;
}

void check_error(const reply& r, int status, const std::string& code,
                 const std::string& mentions = {}) {
  INFO(r.body);
  CHECK(r.status == status);
  CHECK(r.error_code() == code);
  CHECK(r.header("Content-Type") == "application/json");
  if (!mentions.empty())
    CHECK(r.body.find(mentions) != std::string::npos);
}

} // namespace

TEST_CASE("malformed JSON is 400 malformed_json", "[http][errors]") {
  http_fixture fx;
  check_error(fx.post(ops, R"({"workflow":)"), 400, "malformed_json", "byte");
  check_error(fx.post(ops, ""), 400, "malformed_json", "empty");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{}} trailing)"), 400, "malformed_json");
  check_error(fx.post(ops, "\xff\xfe{}"), 400, "malformed_json");
  std::string deep(100, '[');
  deep += std::string(100, ']');
  check_error(fx.post(ops, R"({"workflow":"quick","input":{"x":)" + deep + "}}"), 400,
              "malformed_json", "deeper");
  CHECK(fx.count_ops() == 0);
}

TEST_CASE("missing, wrong-typed and unknown fields are 400 naming the field", "[http][errors]") {
  http_fixture fx;
  check_error(fx.post(ops, "[1,2]"), 400, "invalid_argument", "object");
  check_error(fx.post(ops, R"({"input":{}})"), 400, "invalid_argument", "'workflow'");
  check_error(fx.post(ops, R"({"workflow":"quick"})"), 400, "invalid_argument", "'input'");
  check_error(fx.post(ops, R"({"workflow":5,"input":{}})"), 400, "invalid_argument", "'workflow'");
  check_error(fx.post(ops, R"({"workflow":"","input":{}})"), 400, "invalid_argument", "'workflow'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":[]})"), 400, "invalid_argument",
              "'input'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"version":"1"})"), 400,
              "invalid_argument", "'version'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"version":1.5})"), 400,
              "invalid_argument", "'version'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"version":0})"), 400,
              "invalid_argument", "'version'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"deadline":"tomorrow"})"), 400,
              "invalid_argument", "'deadline'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"idempotency_key":""})"), 400,
              "invalid_argument", "'idempotency_key'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"idempotency_key":7})"), 400,
              "invalid_argument", "'idempotency_key'");
  check_error(fx.post(ops, R"({"workflow":"quick","input":{},"extra":1})"), 400, "invalid_argument",
              "unknown field 'extra'");
  check_error(fx.post(ops, R"({"workflow":"nope","input":{}})"), 400, "unknown_workflow", "nope");
  CHECK(fx.count_ops() == 0);
}

TEST_CASE("unknown paths are 404 and unknown ids are 404", "[http][errors]") {
  http_fixture fx;
  check_error(fx.get("/api/v1/nothing"), 404, "not_found");
  check_error(fx.get("/nothing"), 404, "not_found");
  check_error(fx.get("/api/v1/operations/"), 404, "not_found");
  check_error(fx.get("/api/v1/operations/op-unknown"), 404, "not_found", "op-unknown");
}

TEST_CASE("a method a path does not serve is 405 with Allow", "[http][errors]") {
  http_fixture fx;
  auto c = fx.client();
  auto del = to_reply(c->Delete(ops));
  check_error(del, 405, "method_not_allowed");
  CHECK(del.header("Allow") == "POST, GET, HEAD");
  auto put = to_reply(c->Put(std::string(ops) + "/x", "{}", "application/json"));
  check_error(put, 405, "method_not_allowed");
  CHECK(put.header("Allow") == "GET, HEAD");
  auto get_cancel = to_reply(c->Get(std::string(ops) + "/x/cancel"));
  check_error(get_cancel, 405, "method_not_allowed");
  CHECK(get_cancel.header("Allow") == "POST");
  auto post_health = to_reply(c->Post("/healthz", "", "application/json"));
  CHECK(post_health.status == 405);
  auto options = to_reply(c->Options("/metrics"));
  CHECK(options.status == 405);
  CHECK(options.header("Allow") == "GET, HEAD");
  CHECK(to_reply(c->Patch("/api/v1/workflows", "{}", "application/json")).status == 405);
  // Methods httplib does not know at all, and those it knows but routes
  // nowhere, on raw connections.
  for (auto method : {"FOO", "TRACE", "CONNECT", "BREW"}) {
    auto raw = raw_exchange(fx.port(), std::string(method)
                                         + " /api/v1/operations HTTP/1.1\r\n"
                                           "Host: x\r\nConnection: close\r\n\r\n");
    INFO(method << ": " << raw);
    CHECK(raw_status(raw) == 405);
    CHECK(raw.find("Allow: POST, GET, HEAD") != std::string::npos);
    CHECK(raw.find("method_not_allowed") != std::string::npos);
  }
  auto head = to_reply(c->Head("/healthz"));
  CHECK(head.status == 200);
}

TEST_CASE("bodies over the limit are 413", "[http][errors]") {
  http_fixture fx{small_limits()};
  std::string big = R"({"workflow":"quick","input":{"x":")" + std::string(5000, 'a') + "\"}}";
  check_error(fx.post(ops, big), 413, "payload_too_large");
  // Chunked: no Content-Length to judge up front.
  auto c = fx.client();
  auto chunked = to_reply(c->Post(
    ops,
    [&](size_t offset, httplib::DataSink& sink) {
      if (offset < big.size())
        sink.write(big.data() + offset, std::min<size_t>(1000, big.size() - offset));
      else
        sink.done();
      return true;
    },
    "application/json"));
  CHECK(chunked.status == 413);
  CHECK(chunked.error_code() == "payload_too_large");
  // The server is fine afterwards, also on a new connection.
  CHECK(fx.post(ops, R"({"workflow":"quick","input":{}})").status == 201);
  CHECK(fx.count_ops() == 1);
}

TEST_CASE("a non-JSON Content-Type is 415; a missing one is JSON", "[http][errors]") {
  http_fixture fx;
  auto body = std::string(R"({"workflow":"quick","input":{}})");
  check_error(fx.post(ops, body, "text/plain"), 415, "unsupported_media_type", "text/plain");
  check_error(fx.post(ops, body, "application/x-www-form-urlencoded"), 415,
              "unsupported_media_type");
  check_error(fx.post(ops, body, "multipart/form-data; boundary=xyz"), 415,
              "unsupported_media_type");
  CHECK(fx.post(ops, body, "application/json; charset=utf-8").status == 201);
  CHECK(fx.post(ops, body, "Application/JSON").status == 201);
  auto raw = raw_exchange(fx.port(), "POST /api/v1/operations HTTP/1.1\r\nHost: x\r\n"
                                     "Connection: close\r\nContent-Length: "
                                       + std::to_string(body.size()) + "\r\n\r\n" + body);
  CHECK(raw_status(raw) == 201);
  CHECK(fx.count_ops() == 3);
}

TEST_CASE("malformed query parameters are 400", "[http][errors]") {
  http_fixture fx;
  for (auto target : {"/api/v1/operations?limit=abc",
                      "/api/v1/operations?limit=0",
                      "/api/v1/operations?limit=100000",
                      "/api/v1/operations?limit=-1",
                      "/api/v1/operations?limit=1&limit=2",
                      "/api/v1/operations?limit=1&limit=1",
                      "/api/v1/operations?state=bogus",
                      "/api/v1/operations?stat=failed",
                      "/api/v1/operations?state=",
                      "/api/v1/events?after=-1",
                      "/api/v1/events?after=x",
                      "/api/v1/events?limit=5000",
                      "/api/v1/events?wait=abc",
                      "/api/v1/events?wait=61",
                      "/api/v1/events?wait=-1",
                      "/api/v1/events?wait=1e3",
                      "/api/v1/events/stream?after=-5",
                      "/api/v1/operations/x?verbose=1",
                      "/healthz?x",
                      "/metrics?a=b",
                      "/api/v1/workflows?x=1"}) {
    INFO(target);
    check_error(fx.get(target), 400, "invalid_argument");
  }
  auto c = fx.client();
  auto bad_id = to_reply(c->Get("/api/v1/events/stream", {{"Last-Event-ID", "abc"}}));
  check_error(bad_id, 400, "invalid_argument", "Last-Event-ID");
}

TEST_CASE("oversized headers are 431 and GET bodies 400", "[http][errors]") {
  http_fixture fx{small_limits()};
  auto c = fx.client();
  httplib::Headers big;
  for (int i = 0; i < 4; ++i)
    big.emplace("X-Filler-" + std::to_string(i), std::string(2000, 'x'));
  auto r = to_reply(c->Get("/healthz", big));
  check_error(r, 431, "header_too_large");
  auto raw = raw_exchange(fx.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                     "Content-Length: 2\r\n\r\n{}");
  CHECK(raw_status(raw) == 400);
  CHECK(fx.get("/healthz").status == 200);
}

TEST_CASE("a target that does not decode is 400, a long one 414, and both close",
          "[http][errors]") {
  http_fixture fx;
  auto ask = [&](const std::string& target) {
    return raw_exchange(fx.port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
  };
  for (std::string target : {"/api/v1/operations/a%zz", "/healthz?x=%zz", "*", "/caf\xc3\xa9"}) {
    auto raw = ask(target);
    INFO(target << ": " << raw);
    CHECK(raw_status(raw) == 400);
    CHECK(raw.find("\"bad_request\"") != std::string::npos);
    CHECK(raw.find("Connection: close") != std::string::npos);
  }
  auto raw = ask("/healthz?x=" + std::string(9000, 'a'));
  CHECK(raw_status(raw) == 414);
  CHECK(raw.find("\"uri_too_long\"") != std::string::npos);
  CHECK(raw.find("Connection: close") != std::string::npos);
  // Escapes that do decode reach the route decoded.
  auto escaped = fx.get("/api/v1/workflows/no%20such");
  check_error(escaped, 404, "not_found", "'no such'");
  CHECK(fx.get("/healthz").status == 200);
}

TEST_CASE("cancel and retry take an empty body or {} only", "[http][errors]") {
  http_fixture fx;
  auto id = fx.start_op("sleepy");
  auto base = std::string(ops) + "/" + id;
  check_error(fx.post(base + "/cancel", R"({"reason":"x"})"), 400, "invalid_argument", "'reason'");
  check_error(fx.post(base + "/cancel", "[]"), 400, "invalid_argument");
  check_error(fx.post(base + "/cancel", "{"), 400, "malformed_json");
  check_error(fx.post(base + "/cancel", "{}", "text/plain"), 415, "unsupported_media_type");
  CHECK(fx.post(base + "/cancel", "{}").status == 202);
}
