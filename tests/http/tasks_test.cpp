// The task routes: a worker polls a queue, beats and answers over HTTP;
// stale tokens are 409, bad bodies 400 naming the field, and a worker's
// token may do nothing else.
#include <fstream>
#include <future>
#include <map>

#include <catch2/catch.hpp>

#include "http/auth.hpp"
#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/task_client.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string& tasks = tasks_base;

std::string token_of(const boost::json::object& t) {
  return std::string(t.at("token").as_string());
}

} // namespace

TEST_CASE("a worker takes a task over HTTP, beats and completes it", "[http][tasks]") {
  http_fixture fx;
  auto id = fx.start_op("billed", R"({"amount":12})");
  auto t = take_task(fx, id, "billing");
  CHECK(t.at("step") == "charge");
  CHECK(t.at("workflow") == "billed");
  CHECK(t.at("attempt") == 1);
  CHECK(t.at("input").at("amount") == 12);
  CHECK(t.at("heartbeat_timeout") == "1m");
  auto token = token_of(t);
  auto beat = fx.post(tasks + "/" + token + "/heartbeat", R"({"details":{"done":1}})");
  REQUIRE(beat.status == 200);
  CHECK(beat.json.at("cancel_requested") == false);
  auto queues = fx.get(tasks + "/queues");
  REQUIRE(queues.status == 200);
  auto& q = queues.json.at("items").as_array().at(0);
  CHECK(q.at("name") == "billing");
  CHECK(q.at("taken") == 1);
  CHECK(q.at("workers").as_array().at(0).at("name") == "w-1");
  auto done = fx.post(tasks + "/" + token + "/complete", R"({"data":{"charged":true}})");
  REQUIRE(done.status == 200);
  CHECK(fx.finish(id) == "succeeded");
  CHECK(fx.get(ops + "/" + id).json.at("data").at("charged") == true);
  // The attempt is over: the same token is stale, and nothing changes.
  auto again = fx.post(tasks + "/" + token + "/fail", R"({"error":"late"})");
  CHECK(again.status == 409);
  CHECK(again.error_code() == "stale_task");
  CHECK(fx.get(ops + "/" + id).json.at("state") == "succeeded");
}

TEST_CASE("a long poll is answered when a task becomes ready", "[http][tasks]") {
  http_fixture fx;
  auto polled = std::async(std::launch::async, [&] {
    return fx.post(tasks + "/poll", R"({"queue":"billing","worker":"w-1","wait":"20s"})");
  });
  REQUIRE(eventually([&] { return fx.eng.stats().task_pollers == 1; }));
  REQUIRE(polled.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
  auto id = fx.start_op("billed");
  REQUIRE(polled.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto r = polled.get();
  REQUIRE(r.status == 200);
  REQUIRE(r.json.at("tasks").as_array().size() == 1);
  CHECK(r.json.at("tasks").as_array().at(0).at("operation_id") == id.c_str());
}

TEST_CASE("a worker's failure goes to the step's policy; a final one fails the operation",
          "[http][tasks]") {
  http_fixture fx;
  auto id = fx.start_op("billed");
  auto t = take_task(fx, id, "billing");
  auto r = fx.post(tasks + "/" + token_of(t) + "/fail",
                   R"({"error":"card declined","non_retryable":true})");
  REQUIRE(r.status == 200);
  CHECK(fx.finish(id) == "failed");
  auto op = fx.get(ops + "/" + id);
  CHECK(std::string(op.json.at("error").as_string()).find("card declined") != std::string::npos);
}

TEST_CASE("bad polls, answers and tokens are refused with what is wrong", "[http][tasks]") {
  http_fixture fx;
  auto refused = [&](const std::string& target, const std::string& body) {
    auto r = fx.post(target, body);
    INFO(target << " " << body << " -> " << r.body);
    CHECK(r.status == 400);
    return r.json.is_object() ? std::string(r.json.at("error").at("message").as_string())
                              : std::string{};
  };
  CHECK(refused(tasks + "/poll", R"({"worker":"w"})").find("'queue'") != std::string::npos);
  CHECK(refused(tasks + "/poll", R"({"queue":"q"})").find("'worker'") != std::string::npos);
  CHECK(refused(tasks + "/poll", R"({"queue":"q","worker":"w","max":0})").find("'max'")
        != std::string::npos);
  CHECK(refused(tasks + "/poll", R"({"queue":"q","worker":"w","wait":"forever"})").find("'wait'")
        != std::string::npos);
  CHECK(refused(tasks + "/poll", R"({"queue":"q","worker":"w","wait":"1h"})").find("'wait'")
        != std::string::npos);
  CHECK(refused(tasks + "/poll", R"({"queue":"q","worker":"w","sleep":1})").find("'sleep'")
        != std::string::npos);
  CHECK(refused(tasks + "/poll", "[1]").find("body") != std::string::npos);
  auto id = fx.start_op("billed");
  auto token = token_of(take_task(fx, id, "billing"));
  CHECK(refused(tasks + "/" + token + "/fail", "{}").find("'error'") != std::string::npos);
  CHECK(refused(tasks + "/" + token + "/fail", R"({"error":"x","retry_after":"soon"})")
          .find("'retry_after'")
        != std::string::npos);
  CHECK(refused(tasks + "/" + token + "/complete", R"({"data":[1]})").find("'data'")
        != std::string::npos);
  CHECK(refused(tasks + "/nodots/complete", "{}").find("malformed task token")
        != std::string::npos);
  auto stale = fx.post(tasks + "/" + id + ".7.abcdef/complete", "{}");
  CHECK(stale.status == 409);
  CHECK(stale.error_code() == "stale_task");
  // None of it touched the task: it completes.
  REQUIRE(fx.post(tasks + "/" + token + "/complete", "").status == 200);
  CHECK(fx.finish(id) == "succeeded");
}

TEST_CASE("a worker token polls and answers tasks and may do nothing else", "[http][tasks][auth]") {
  temp_dir dir;
  auto path = dir.path + "/tokens";
  std::ofstream(path) << "write ci writer-token-0123456789\n"
                         "read dash reader-token-0123456789\n"
                         "worker billing-workers worker-token-0123456789\n";
  auto auth = http::authenticator::open(path);
  REQUIRE(auth);
  auto cfg = http_fixture::default_config();
  cfg.auth = *auth;
  http_fixture fx{cfg};
  auto call = [&](const std::string& method, const std::string& target, const std::string& token,
                  const std::string& body = "{}") {
    httplib::Headers hs{{"Authorization", "Bearer " + token}};
    auto c = fx.client();
    return method == "GET" ? to_reply(c->Get(target, hs))
                           : to_reply(c->Post(target, hs, body, "application/json"));
  };
  std::string worker = "worker-token-0123456789";
  std::string reader = "reader-token-0123456789";
  std::string writer = "writer-token-0123456789";
  auto started = call("POST", ops, writer, R"({"workflow":"billed","input":{}})");
  REQUIRE(started.status == 201);
  std::string id(started.json.at("id").as_string());
  const std::string poll = R"({"queue":"billing","worker":"w","wait":"5s"})";
  // A reader may not take tasks; a worker may; so may a writer.
  CHECK(call("POST", tasks + "/poll", reader, poll).status == 403);
  auto got = call("POST", tasks + "/poll", worker, poll);
  REQUIRE(got.status == 200);
  REQUIRE(got.json.at("tasks").as_array().size() == 1);
  auto token = std::string(got.json.at("tasks").as_array().at(0).at("token").as_string());
  // Nothing else is open to a worker: reads, starts, control.
  auto refused = call("GET", ops + "/" + id, worker);
  CHECK(refused.status == 403);
  CHECK(refused.body.find("worker") != std::string::npos);
  CHECK(call("GET", ops, worker).status == 403);
  CHECK(call("GET", tasks + "/queues", worker).status == 403);
  CHECK(call("POST", ops, worker, R"({"workflow":"quick","input":{}})").status == 403);
  CHECK(call("POST", ops + "/" + id + "/cancel", worker).status == 403);
  CHECK(call("POST", ops + "/" + id + "/signals/go", worker).status == 403);
  CHECK(call("GET", tasks + "/queues", reader).status == 200);
  CHECK(call("POST", tasks + "/" + token + "/heartbeat", worker).status == 200);
  CHECK(call("POST", tasks + "/" + token + "/complete", worker).status == 200);
  CHECK(call("GET", ops + "/" + id, reader).status == 200);
}

TEST_CASE("a worker completes a batch of tasks in one request", "[http][tasks]") {
  http_fixture fx;
  auto a = fx.start_op("billed", R"({"amount":1})");
  auto b = fx.start_op("billed", R"({"amount":2})");
  // One poll may take both: they are kept by operation.
  std::map<std::string, boost::json::object> taken;
  for (int i = 0; i < 100 && taken.size() < 2; ++i) {
    auto got =
      fx.post(tasks + "/poll", R"({"queue":"billing","worker":"w-1","max":2,"wait":"100ms"})");
    REQUIRE(got.status == 200);
    for (auto& t : got.json.at("tasks").as_array())
      taken[std::string(t.at("operation_id").as_string())] = t.as_object();
  }
  REQUIRE(taken.size() == 2);
  auto ta = taken.at(a);
  auto tb = taken.at(b);
  CHECK(ta.at("ready_at").is_string());
  // A bad item refuses the whole batch: nothing is carried out.
  for (auto* bad : {R"({"tasks":[]})", R"({"tasks":[{"data":{}}]})", R"({"tokens":[]})"}) {
    auto r = fx.post(tasks + "/complete", bad);
    CHECK(r.status == 400);
    CHECK(r.error_code() == "invalid_argument");
  }
  auto extra = fx.post(tasks + "/complete", "{\"tasks\":[{\"token\":\"" + token_of(ta)
                                              + "\",\"data\":{},\"error\":\"x\"}]}");
  CHECK(extra.status == 400);
  CHECK(extra.json.at("error").at("message").as_string().find("tasks[0]") == 0);
  CHECK(fx.get(ops + "/" + a).json.at("state") == "waiting");
  // The same token twice: the first answer is taken, the second is stale.
  auto body = "{\"tasks\":[{\"token\":\"" + token_of(ta) + "\",\"data\":{\"n\":1}},{\"token\":\""
              + token_of(tb) + "\"},{\"token\":\"" + token_of(ta) + "\"}]}";
  auto r = fx.post(tasks + "/complete", body);
  REQUIRE(r.status == 200);
  auto& items = r.json.at("items").as_array();
  REQUIRE(items.size() == 3);
  CHECK(items[0].at("token") == ta.at("token"));
  CHECK(items[0].at("accepted") == true);
  CHECK(items[1].at("accepted") == true);
  CHECK(items[2].at("error").at("code") == "stale_task");
  CHECK(fx.finish(a) == "succeeded");
  CHECK(fx.finish(b) == "succeeded");
  CHECK(fx.get(ops + "/" + a).json.at("data").at("n") == 1);
}
