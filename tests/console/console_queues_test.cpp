// The console's task queues page, in a real browser: empty, it says how a
// queue comes to be; then it shows what the server says of each queue
// (ready, taken, pollers waiting, the oldest ready task's age, the workers
// seen) and follows a long poll and an answered task without a reload.

#include <future>

#include <catch2/catch.hpp>

#include "tests/console/console_session.hpp"

using namespace stepwise::test;

namespace {

// The text of `field`'s cell in queue `queue`'s row, as a JS expression
// ('' while the row is missing).
std::string queue_cell(const std::string& queue, const std::string& field) {
  return "(document.querySelector('#queues tr[data-queue=" + queue + "] [data-field=" + field
         + "]')?.innerText ?? '')";
}

boost::json::object queue_from_api(httplib::Client& c, const std::string& name) {
  auto r = to_reply(c.Get("/api/v1/tasks/queues"));
  REQUIRE(r.status == 200);
  for (auto& q : r.json.at("items").as_array())
    if (q.at("name") == name.c_str())
      return q.as_object();
  return {};
}

} // namespace

TEST_CASE("the console shows task queues with their depth, age and workers", "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  s.sign_in();
  auto c = s.api();

  b.eval("document.querySelector('[data-nav=queues]').click(); true");
  REQUIRE(b.wait_for("document.querySelector('#queues .empty')?.innerText"
                     "  .includes('No task queues yet')",
                     std::chrono::seconds(20)));
  CHECK(b.eval("document.querySelector('#queues .empty').innerText"
               ".includes('/api/v1/tasks/poll')")
        == true);
  CHECK(b.eval("document.querySelector('[data-nav=queues]').classList.contains('active')") == true);
  // After the token the event stream connects again: shown live, not dropped.
  CHECK(b.wait_for("document.getElementById('live').classList.contains('on')",
                   std::chrono::seconds(10)));
  REQUIRE(b.screenshot(artifact("console-queues-empty.png")));

  auto defined = to_reply(c.Put("/api/v1/workflows/order",
                                R"({"steps":[{"name":"charge","kind":"task","queue":"billing"},)"
                                R"({"name":"ship","kind":"task","queue":"shipping"}]})",
                                "application/json"));
  INFO(defined.body);
  REQUIRE(defined.status == 201);
  auto first = s.start("order", "{}");
  auto second = s.start("order", "{}");

  // w-1 takes one charge (the long poll answers once one is ready) and the
  // other stays ready.
  auto took = to_reply(c.Post("/api/v1/tasks/poll",
                              R"({"queue":"billing","worker":"w-1","max":1,"wait":"20s"})",
                              "application/json"));
  INFO(took.body);
  REQUIRE(took.status == 200);
  REQUIRE(took.json.at("tasks").as_array().size() == 1);
  auto task = took.json.at("tasks").as_array().at(0).as_object();
  CHECK((task.at("operation_id") == first.c_str() || task.at("operation_id") == second.c_str()));
  auto task_token = std::string(task.at("token").as_string());
  REQUIRE(b.wait_for(queue_cell("billing", "ready") + " === '1' && "
                       + queue_cell("billing", "taken") + " === '1'",
                     std::chrono::seconds(20)));
  // Nothing polls billing now: the page and the API agree on all of it.
  auto billing = queue_from_api(c, "billing");
  INFO(boost::json::serialize(billing));
  CHECK(billing.at("ready") == 1);
  CHECK(billing.at("taken") == 1);
  CHECK(billing.at("pollers") == 0);
  CHECK(b.eval(queue_cell("billing", "pollers")) == "0");
  CHECK(b.eval(queue_cell("billing", "workers") + ".includes('w-1')") == true);
  CHECK(b.eval("document.querySelector('#queues tr[data-queue=billing] .worker')"
               ".dataset.worker")
        == "w-1");
  CHECK(b.eval("/^\\d+ s$/.test(" + queue_cell("billing", "oldest") + ")") == true);
  CHECK(b.eval("document.querySelectorAll('#queues tbody tr').length") == 1);

  // A long poll on shipping shows as a poller waiting (polls make no event:
  // the page reads again on its own).
  auto shipping_poll = std::async(std::launch::async, [&] {
    httplib::Client w("127.0.0.1", s.port);
    w.set_bearer_token_auth(console_token);
    w.set_read_timeout(30);
    return to_reply(w.Post("/api/v1/tasks/poll",
                           R"({"queue":"shipping","worker":"w-2","max":1,"wait":"20s"})",
                           "application/json"));
  });
  REQUIRE(b.wait_for(queue_cell("shipping", "pollers") + " === '1'", std::chrono::seconds(10)));
  CHECK(b.eval(queue_cell("shipping", "oldest")) == "none ready");

  // w-1's answer moves its operation to shipping, where w-2 takes it.
  auto done = to_reply(c.Post("/api/v1/tasks/" + task_token + "/complete",
                              R"({"data":{"charged":true}})", "application/json"));
  REQUIRE(done.status == 200);
  REQUIRE(shipping_poll.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  auto shipped = shipping_poll.get();
  INFO(shipped.body);
  REQUIRE(shipped.status == 200);
  REQUIRE(shipped.json.at("tasks").as_array().size() == 1);
  CHECK(shipped.json.at("tasks").as_array().at(0).at("operation_id") == task.at("operation_id"));
  REQUIRE(b.wait_for(queue_cell("shipping", "taken") + " === '1' && "
                       + queue_cell("shipping", "pollers") + " === '0' && "
                       + queue_cell("billing", "taken") + " === '0' && "
                       + queue_cell("billing", "ready") + " === '1'",
                     std::chrono::seconds(20)));
  CHECK(b.eval(queue_cell("shipping", "workers") + ".includes('w-2')") == true);
  CHECK(b.eval("document.querySelector('.panel-head .muted').innerText")
        == "2 queues · 1 ready, 1 taken");
  REQUIRE(b.screenshot(artifact("console-queues.png")));
}
