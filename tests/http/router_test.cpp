#include <catch2/catch.hpp>

#include "http/body.hpp"
#include "http/errors.hpp"
#include "http/prometheus.hpp"
#include "http/router.hpp"
#include "engine/errc.hpp"

using namespace stepwise;
using namespace stepwise::http;

TEST_CASE("routes match literal segments and {params}", "[http][router]") {
  router r{limits{}};
  auto nop = [](request&, server_response&) {};
  r.add("POST", "/api/v1/operations", nop);
  r.add("GET", "/api/v1/operations", nop);
  r.add("GET", "/api/v1/operations/{id}", nop);
  r.add("POST", "/api/v1/operations/{id}/cancel", nop);
  auto m = r.find("GET", "/api/v1/operations/op-1");
  REQUIRE(m.hit != nullptr);
  CHECK(m.hit->pattern == "/api/v1/operations/{id}");
  CHECK(m.params == std::vector<std::string>{"op-1"});
  CHECK(r.find("HEAD", "/api/v1/operations/op-1").hit != nullptr);
  auto wrong = r.find("DELETE", "/api/v1/operations");
  CHECK(wrong.hit == nullptr);
  CHECK(wrong.allow == "POST, GET, HEAD");
  auto none = r.find("GET", "/api/v1/operations/a/b");
  CHECK(none.hit == nullptr);
  CHECK(none.allow.empty());
  CHECK(r.find("GET", "/api/v1/operations/").allow.empty());
  CHECK(r.find("GET", "/api/v1/operations//cancel").allow.empty());
  CHECK(r.label("/api/v1/operations/x/cancel") == "/api/v1/operations/{id}/cancel");
  CHECK(r.label("/elsewhere") == "unmatched");
}

TEST_CASE("the router times a request from the start it carries", "[http][router]") {
  request_metrics metrics;
  router r{limits{}, &metrics};
  r.add("GET", "/x",
        [](request&, server_response& res) { res.set_content("{}", "application/json"); });
  // A sample of the duration histogram of `/x` ("_count", "_sum"), or "none".
  auto duration = [&](const std::string& sample) {
    prometheus_writer out;
    metrics.render(out);
    auto& text = out.text();
    auto key = "stepwise_http_request_duration_seconds" + sample + "{route=\"/x\"} ";
    auto at = text.find(key);
    if (at == std::string::npos)
      return std::string("none");
    at += key.size();
    return text.substr(at, text.find('\n', at) - at);
  };
  server_request req;
  req.method = "GET";
  req.target = "/x";
  req.path = "/x";
  server_response untimed;
  r.serve(req, untimed);
  CHECK(untimed.status == 200);
  CHECK(metrics.count("GET", "/x", 200) == 1);
  CHECK(duration("_count") == "none");
  req.started = std::chrono::steady_clock::now() - std::chrono::seconds(2);
  server_response timed;
  r.serve(req, timed);
  CHECK(metrics.count("GET", "/x", 200) == 2);
  // Timed from when the request says it started, not from when it was routed.
  CHECK(duration("_count") == "1");
  CHECK(std::stod(duration("_sum")) >= 2.0);
}

TEST_CASE("JSON content types", "[http][router]") {
  CHECK(is_json_type("application/json"));
  CHECK(is_json_type("Application/JSON; charset=utf-8"));
  CHECK(is_json_type(" application/json "));
  CHECK(is_json_type("application/merge-patch+json"));
  CHECK_FALSE(is_json_type("text/json"));
  CHECK_FALSE(is_json_type("application/jsonx"));
  CHECK_FALSE(is_json_type("multipart/form-data; boundary=x"));
  CHECK_FALSE(is_json_type(""));
}

TEST_CASE("engine errors map to HTTP statuses in one table", "[http][errors]") {
  auto st = [](errc x) { return from_engine(make_error(x, "why")).status; };
  CHECK(st(errc::unknown_workflow) == 400);
  CHECK(st(errc::invalid_argument) == 400);
  CHECK(st(errc::not_found) == 404);
  CHECK(st(errc::invalid_state) == 409);
  CHECK(st(errc::idempotency_conflict) == 409);
  CHECK(st(errc::shutting_down) == 503);
  CHECK(st(errc::store_failure) == 503);
  CHECK(st(errc::timeout) == 503);
  auto e = from_engine(make_error(errc::not_found, "no operation 'x'"));
  CHECK(e.code == "not_found");
  CHECK(e.message == "no operation 'x'");
  CHECK(error_body(e) == R"({"error":{"code":"not_found","message":"no operation 'x'"}})");
}

TEST_CASE("start requests decode strictly", "[http][body]") {
  auto decode = [](const std::string& text) {
    boost::json::value v;
    REQUIRE_FALSE(parse_json(text, 32, v));
    start_request sr;
    auto err = decode_start(v, sr);
    return std::make_pair(err, sr);
  };
  auto [ok, sr] = decode(R"({"workflow":"w","input":{"a":1},"version":2,)"
                         R"("idempotency_key":"k","deadline":"2030-01-01T00:00:00Z"})");
  CHECK_FALSE(ok);
  CHECK(sr.workflow == "w");
  CHECK(sr.version == 2);
  CHECK(sr.idempotency_key == "k");
  REQUIRE(sr.deadline);
  CHECK(format_time(*sr.deadline) == "2030-01-01T00:00:00.000Z");
  CHECK(decode(R"({"workflow":"w","input":{},"version":null,"deadline":null})").first
        == std::nullopt);
  CHECK(decode(R"({"workflow":"w","input":{},"version":99999999999})").first->status == 400);
  CHECK(decode(R"({"workflow":"w","input":{},"version":18446744073709551615})").first->status
        == 400);
  boost::json::value v;
  auto deep = std::string(40, '[') + std::string(40, ']');
  auto err = parse_json(deep, 32, v);
  REQUIRE(err);
  CHECK(err->code == "malformed_json");
  CHECK_FALSE(parse_json(deep, 64, v));
}
