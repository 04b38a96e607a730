// The client reuses the easy handles of finished transfers: nothing of one
// request may reach the next that takes its handle.
#include <catch2/catch.hpp>

#include <future>
#include <string>
#include <string_view>
#include <variant>

#include "net/http_client.hpp"
#include "tests/net/local_server.hpp"

using namespace stepwise;
using namespace stepwise::net;
using namespace std::chrono_literals;

namespace {

http_result call(http_client& client, http_request req) {
  std::promise<http_result> answer;
  auto got = answer.get_future();
  client.send(std::move(req), [&answer](http_result r) { answer.set_value(std::move(r)); });
  REQUIRE(got.wait_for(30s) == std::future_status::ready);
  return got.get();
}

std::string header_of(const http_response& r, std::string_view name) {
  auto* v = r.header(name);
  return v != nullptr ? *v : std::string{};
}

} // namespace

TEST_CASE("a reused handle carries nothing of the request before", "[net]") {
  test::local_server srv;
  REQUIRE(srv.ok());
  http_client_options opts;
  opts.max_total_connections = 1; // one connection, so one handle turns over
  http_client client{opts};
  for (int round = 0; round < 3; ++round) {
    http_request post;
    post.method = http_method::post;
    post.url = srv.url("/echo");
    post.headers = {{"Content-Type", "application/json"}, {"X-Test", "first"}};
    post.body = R"({"n":1})";
    auto a_res = call(client, post);
    auto* a = std::get_if<http_response>(&a_res);
    REQUIRE(a != nullptr);
    CHECK(a->body == R"(POST {"n":1})");
    CHECK(header_of(*a, "X-Echo-Test") == "first");
    http_request get;
    get.url = srv.url("/echo");
    auto b_res = call(client, get);
    auto* b = std::get_if<http_response>(&b_res);
    REQUIRE(b != nullptr);
    CHECK(b->body == "GET ");
    CHECK(header_of(*b, "X-Echo-Test").empty());
    CHECK(header_of(*b, "X-Echo-Type").empty());
    http_request slow;
    slow.url = srv.url("/sleep/2000");
    slow.timeout = 50ms;
    auto c_res = call(client, slow);
    auto* c = std::get_if<http_error>(&c_res);
    REQUIRE(c != nullptr);
    CHECK(c->kind == http_error_kind::timeout);
  }
  srv.release();
}
