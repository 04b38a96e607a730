// Workflows defined as data over the API: versions, bad definitions named
// by field, deletion only once nothing of them lives, and operations of
// them run by workers through the task routes, after a restart too.
#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/task_client.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string wfs = "/api/v1/workflows";

/// charge (task, compensated by refund), approval (signal), ship (task).
const std::string order = R"({"steps":[
  {"name":"charge","kind":"task","queue":"orders","compensate":"refund","heartbeat_timeout":"1m"},
  {"name":"approval","kind":"signal","signal":"approved","timeout":"1h"},
  {"name":"ship","kind":"task","queue":"orders","retry":{"max_attempts":3,"initial":"1s"}}],
  "secrets":["/card"]})";

} // namespace

TEST_CASE("a workflow defined as data gets versions; operations keep theirs",
          "[http][definitions]") {
  http_fixture fx;
  auto v1 = fx.put(wfs + "/order", order);
  REQUIRE(v1.status == 201);
  CHECK(v1.json.at("version") == 1);
  CHECK(v1.json.at("source") == "data");
  CHECK(v1.header("Location") == "/api/v1/workflows/order?version=1");
  // The same definition, written otherwise: nothing new.
  auto parsed = boost::json::parse(order).as_object();
  auto same =
    fx.put(wfs + "/order", boost::json::serialize(boost::json::object{
                             {"secrets", parsed.at("secrets")}, {"steps", parsed.at("steps")}}));
  CHECK(same.status == 200);
  CHECK(same.json.at("version") == 1);
  auto first = fx.start_op("order", R"({"card":"4111-secret"})");
  auto t = take_task(fx, first, "orders");
  CHECK(t.at("input").at("card") == "4111-secret");
  CHECK(fx.get(ops + "/" + first).body.find("4111-secret") == std::string::npos);
  // A changed definition is version 2; the running operation stays on 1.
  auto v2 = fx.put(wfs + "/order", R"({"steps":[{"name":"only","kind":"task","queue":"orders"}]})");
  REQUIRE(v2.status == 201);
  CHECK(v2.json.at("version") == 2);
  auto shown = fx.get(wfs + "/order");
  CHECK(shown.json.at("version") == 2);
  CHECK(shown.json.at("versions") == boost::json::parse("[1,2]"));
  CHECK(shown.json.at("definition").at("steps").as_array().size() == 1);
  REQUIRE(answer_task(fx, t, "complete", R"({"data":{"charged":true}})").status == 200);
  REQUIRE(fx.await_event(first, "operation_waiting"));
  REQUIRE(fx.post(ops + "/" + first + "/signals/approved", "{}").status == 202);
  REQUIRE(answer_task(fx, take_task(fx, first, "orders"), "complete").status == 200);
  CHECK(fx.finish(first) == "succeeded");
  auto done = fx.get(ops + "/" + first).json;
  CHECK(done.at("version") == 1);
  CHECK(done.at("steps").as_array().size() == 3);
  auto second = fx.start_op("order");
  CHECK(fx.get(ops + "/" + second).json.at("version") == 2);
  REQUIRE(answer_task(fx, take_task(fx, second, "orders"), "complete").status == 200);
  CHECK(fx.finish(second) == "succeeded");
}

TEST_CASE("a task step's compensation is a task, run when a later step fails",
          "[http][definitions]") {
  http_fixture fx;
  REQUIRE(fx.put(wfs + "/order", order).status == 201);
  auto id = fx.start_op("order");
  REQUIRE(answer_task(fx, take_task(fx, id, "orders"), "complete").status == 200);
  REQUIRE(fx.await_event(id, "operation_waiting"));
  REQUIRE(fx.post(ops + "/" + id + "/signals/approved", "{}").status == 202);
  auto ship = take_task(fx, id, "orders");
  REQUIRE(answer_task(fx, ship, "fail", R"({"error":"no stock","non_retryable":true})").status
          == 200);
  auto refund = take_task(fx, id, "orders");
  CHECK(refund.at("step") == "refund");
  REQUIRE(answer_task(fx, refund, "complete").status == 200);
  CHECK(fx.finish(id) == "failed");
  auto op = fx.get(ops + "/" + id).json;
  CHECK(op.at("steps").as_array().at(0).at("compensation") == "succeeded");
}

TEST_CASE("a child step starts an operation and waits for its end", "[http][definitions]") {
  http_fixture fx;
  REQUIRE(fx.put(wfs + "/parent",
                 R"({"steps":[{"name":"kid","kind":"child","workflow":"quick","input":{"x":1}}]})")
            .status
          == 201);
  auto id = fx.start_op("parent");
  CHECK(fx.finish(id) == "succeeded");
  auto op = fx.get(ops + "/" + id).json;
  CHECK(op.at("data").at("children_results").at("kid").as_object().size() == 1);
}

TEST_CASE("bad definitions are refused naming the field", "[http][definitions]") {
  http_fixture fx;
  auto refused = [&](const std::string& name, const std::string& body, int status = 400) {
    auto r = fx.put(wfs + "/" + name, body);
    INFO(body << " -> " << r.body);
    CHECK(r.status == status);
    return r.json.is_object() ? std::string(r.json.at("error").at("message").as_string())
                              : std::string{};
  };
  auto names = [](const std::string& msg, const std::string& field) {
    INFO(msg);
    return msg.find(field) != std::string::npos;
  };
  CHECK(names(refused("w", "{}"), "'steps'"));
  CHECK(names(refused("w", R"({"steps":[]})"), "'steps'"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"teleport"}]})"), "steps[0].kind"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"task"}]})"), "steps[0].queue"));
  CHECK(names(refused("w", R"({"steps":[{"kind":"task","queue":"q"}]})"), "steps[0].name"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"sleep","duration":"soon"}]})"),
              "steps[0].duration"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"task","queue":"q",)"
                           R"("retry":{"multiplier":0.5}}]})"),
              "steps[0].retry.multiplier"));
  CHECK(
    names(refused("w", R"({"steps":[{"name":"a","kind":"sleep","duration":"1s","queue":"q"}]})"),
          "steps[0].queue"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"signal"}]})"), "steps[0].signal"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"task","queue":"q"},)"
                           R"({"name":"a","kind":"task","queue":"q"}]})"),
              "used twice"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"task","queue":"q"}],"limit":0})"),
              "'limit'"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"task","queue":"q"}],"key":"x"})"),
              "'key'"));
  CHECK(names(refused("w", R"({"steps":[{"name":"a","kind":"task","queue":"q"}],"colour":1})"),
              "'colour'"));
  CHECK(names(refused("w", "[1]"), "body"));
  CHECK(names(refused("bad%20name", R"({"steps":[{"name":"a","kind":"task","queue":"q"}]})"),
              "workflow name"));
  CHECK(names(refused("quick", R"({"steps":[{"name":"a","kind":"task","queue":"q"}]})", 409),
              "built into the server"));
  // Nothing of it was stored.
  CHECK(fx.get(wfs + "/w").status == 404);
}

TEST_CASE("a workflow is deleted only once none of its operations lives", "[http][definitions]") {
  http_fixture fx;
  REQUIRE(fx.put(wfs + "/order", order).status == 201);
  auto id = fx.start_op("order");
  auto t = take_task(fx, id, "orders");
  auto refused = fx.del(wfs + "/order");
  CHECK(refused.status == 409);
  CHECK(refused.body.find(id) != std::string::npos);
  CHECK(fx.del(wfs + "/quick").status == 409);
  REQUIRE(fx.post(ops + "/" + id + "/cancel", "").status / 100 == 2);
  // Canceled: its compensation (refund of the charge never completed) is
  // not due; the operation ends.
  CHECK(fx.finish(id) == "canceled");
  auto gone = fx.del(wfs + "/order");
  REQUIRE(gone.status == 200);
  CHECK(gone.json.at("versions_deleted") == 1);
  CHECK(fx.get(wfs + "/order").status == 404);
  CHECK(fx.del(wfs + "/order").status == 404);
  CHECK(fx.post(ops, R"({"workflow":"order","input":{}})").status == 400);
}

TEST_CASE("a workflow defined as data and its operations outlive a restart",
          "[http][definitions]") {
  http_fixture fx;
  REQUIRE(fx.put(wfs + "/order", order).status == 201);
  auto id = fx.start_op("order");
  auto before = take_task(fx, id, "orders");
  fx.stop();
  fx.start();
  CHECK(fx.get(wfs + "/order").json.at("source") == "data");
  // The attempt's task is ready again once the operation resumed (its
  // actor tells the broker again; under the sanitizers on a loaded machine
  // the first answer came before, and was 409): the worker that held it
  // may answer then.
  REQUIRE(eventually([&] { return answer_task(fx, before, "complete").status == 200; },
                     std::chrono::seconds(30)));
  REQUIRE(fx.await_event(id, "operation_waiting"));
  REQUIRE(fx.post(ops + "/" + id + "/signals/approved", "{}").status == 202);
  REQUIRE(answer_task(fx, take_task(fx, id, "orders"), "complete").status == 200);
  CHECK(fx.finish(id) == "succeeded");
}

TEST_CASE("a key defined while the server runs serializes operations", "[http][definitions]") {
  http_fixture fx;
  REQUIRE(fx.put(wfs + "/per_customer",
                 R"({"steps":[{"name":"work","kind":"task","queue":"orders"}],"key":"/customer"})")
            .status
          == 201);
  auto first = fx.start_op("per_customer", R"({"customer":"ann"})");
  auto second = fx.start_op("per_customer", R"({"customer":"ann"})");
  auto other = fx.start_op("per_customer", R"({"customer":"bob"})");
  auto t1 = take_task(fx, first, "orders");
  auto t3 = take_task(fx, other, "orders");
  auto queued = fx.get(ops + "/" + second).json;
  CHECK(queued.at("state") == "pending");
  CHECK(queued.at("blocked_by") == first.c_str());
  REQUIRE(answer_task(fx, t1, "complete").status == 200);
  CHECK(fx.finish(first) == "succeeded");
  REQUIRE(answer_task(fx, take_task(fx, second, "orders"), "complete").status == 200);
  CHECK(fx.finish(second) == "succeeded");
  REQUIRE(answer_task(fx, t3, "complete").status == 200);
  CHECK(fx.finish(other) == "succeeded");
}
