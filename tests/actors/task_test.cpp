// Task steps: workers poll a queue for the attempts of task steps and
// answer them; the answer is the step's outcome, once per attempt, and
// timeouts end attempts whose worker never came or went silent.
#include <future>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"
#include "tests/engine/test_keys.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

namespace {

/// `w`: step `a`, the task `charge` on queue `billing`, step `after`.
registry billing(std::function<void(step_def&)> tune = {}) {
  auto charge = make_task_step("charge", "billing");
  if (tune)
    tune(charge);
  return one(workflow("w", 1).step(1, ok("a")).step(2, std::move(charge)).step(3, ok("after")));
}

retry_policy three_attempts() {
  retry_policy p;
  p.max_attempts = 3;
  p.initial_interval = 1s;
  p.multiplier = 1.0;
  return p;
}

task_poll poll_of(std::string worker, duration wait = duration{0}) {
  return task_poll{"billing", std::move(worker), 10, wait};
}

/// Waits until the task of operation `id` is ready and takes it.
task_lease take(harness& h, const std::string& id, const std::string& worker = "w-1") {
  task_lease out;
  REQUIRE(h.eventually([&] {
    auto got = h.eng.poll_tasks(poll_of(worker));
    REQUIRE(got);
    for (auto& t : *got)
      if (t.operation_id == id)
        out = t;
    return !out.token.empty();
  }));
  return out;
}

task_answer completion(const task_lease& t, boost::json::object data) {
  task_answer a;
  a.token = t.token;
  a.data = std::move(data);
  return a;
}

task_answer failure(const task_lease& t, std::string error, bool final = false) {
  task_answer a;
  a.token = t.token;
  a.what = task_answer::kind::fail;
  a.error = std::move(error);
  a.non_retryable = final;
  return a;
}

bool is_stale(const caf::expected<void>& got) {
  return !got && code_of(got.error()) == errc::stale_task;
}

} // namespace

TEST_CASE("a worker takes a task step's attempt and its answer completes the step",
          "[actors][tasks]") {
  harness h{billing()};
  auto id = h.start("w", {{"amount", 12}});
  auto t = take(h, id);
  CHECK(t.step == "charge");
  CHECK(t.workflow == "w");
  CHECK(t.attempt == 1);
  CHECK(t.input.at("amount") == 12);
  CHECK(t.data.contains("a"));
  // Taken: no other worker gets it.
  auto again = h.eng.poll_tasks(poll_of("w-2"));
  REQUIRE(again);
  CHECK(again->empty());
  REQUIRE(h.eng.answer_task(completion(t, {{"charged", true}})));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("charged") == true);
  // The same answer again is for an attempt that is over: nothing changes.
  CHECK(is_stale(h.eng.answer_task(completion(t, {{"charged", false}}))));
  CHECK(h.eng.get(id)->data.at("charged") == true);
  CHECK(h.eng.stats().tasks_handed == 1);
  CHECK(h.eng.stats().tasks_stale_answers == 1);
}

TEST_CASE("a long poll is answered as soon as a task is ready, or empty after its wait",
          "[actors][tasks]") {
  harness h{billing()};
  std::promise<caf::expected<std::vector<task_lease>>> first;
  h.eng.poll_tasks(poll_of("w-1", 20s), [&](auto got) { first.set_value(std::move(got)); });
  REQUIRE(h.eventually([&] { return h.eng.stats().task_pollers == 1; }));
  auto id = h.start("w");
  auto got = first.get_future().get();
  REQUIRE(got);
  REQUIRE(got->size() == 1);
  CHECK(got->front().operation_id == id);
  // Nothing else is ready: the next poll waits its 20 s of engine time.
  std::promise<caf::expected<std::vector<task_lease>>> second;
  auto answered = second.get_future();
  h.eng.poll_tasks(poll_of("w-1", 20s), [&](auto got) { second.set_value(std::move(got)); });
  REQUIRE(h.eventually([&] { return h.eng.stats().task_pollers == 1; }));
  h.clk->advance(19s);
  CHECK(answered.wait_for(50ms) == std::future_status::timeout);
  h.clk->advance(1s);
  auto empty = answered.get();
  REQUIRE(empty);
  CHECK(empty->empty());
  CHECK(h.eng.stats().task_pollers == 0);
}

TEST_CASE("a worker's failure is retried by the step's policy; a final one fails the operation",
          "[actors][tasks]") {
  harness h{billing([](step_def& s) { s.with_policy(three_attempts()); })};
  auto id = h.start("w");
  auto t1 = take(h, id);
  task_answer later = failure(t1, "card declined, try again");
  later.retry_after = 5s;
  REQUIRE(h.eng.answer_task(later));
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "charge"));
  h.clk->advance(5s);
  auto t2 = take(h, id);
  CHECK(t2.attempt == 2);
  CHECK(t2.token != t1.token);
  // The first attempt's token is stale now.
  CHECK(is_stale(h.eng.answer_task(completion(t1, {}))));
  REQUIRE(h.eng.answer_task(failure(t2, "card stolen", true)));
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("card stolen") != std::string::npos);
}

TEST_CASE("a task no worker takes in time, or whose worker goes silent, ends its attempt",
          "[actors][tasks]") {
  harness h{billing([](step_def& s) {
    s.with_start_timeout(30s).with_heartbeat_timeout(10s).with_policy(three_attempts());
  })};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "charge"));
  h.clk->advance(30s);
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "charge"));
  CHECK(h.eng.stats().tasks_timed_out == 1);
  h.clk->advance(1s);
  auto t2 = take(h, id);
  CHECK(t2.attempt == 2);
  REQUIRE(t2.heartbeat_timeout == duration{10s});
  // Heartbeats keep it; silence ends it.
  h.clk->advance(8s);
  auto beat = h.eng.heartbeat_task({t2.token, {{"progress", 50}}});
  REQUIRE(beat);
  CHECK_FALSE(beat->cancel_requested);
  h.clk->advance(8s);
  CHECK(h.eng.get(id)->steps[1].attempts == 2);
  h.clk->advance(2s);
  REQUIRE(h.await_count(id, event_type::step_retry_scheduled, 2));
  CHECK(h.eng.stats().tasks_timed_out == 2);
  CHECK(is_stale(h.eng.answer_task(completion(t2, {}))));
  h.clk->advance(1s);
  // The next attempt gets the details of the last heartbeat.
  auto t3 = take(h, id);
  CHECK(t3.attempt == 3);
  CHECK(t3.details.at("progress") == 50);
  REQUIRE(h.eng.answer_task(completion(t3, {})));
  CHECK(h.finish(id).state == op_state::succeeded);
}

TEST_CASE("a canceled operation's worker learns it from its heartbeat and cannot answer",
          "[actors][tasks]") {
  harness h{billing()};
  auto id = h.start("w");
  auto t = take(h, id);
  REQUIRE(h.eng.cancel(id));
  CHECK(h.finish(id).state == op_state::canceled);
  REQUIRE(h.eventually([&] {
    auto beat = h.eng.heartbeat_task({t.token, {}});
    return beat && beat->cancel_requested;
  }));
  CHECK(is_stale(h.eng.answer_task(completion(t, {}))));
}

TEST_CASE("after a restart the attempt's task is ready again, and its first worker may answer",
          "[actors][tasks]") {
  auto store = std::make_shared<memory_store>();
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  std::string id;
  task_lease before;
  {
    harness h{billing(), store, {}, clk};
    id = h.start("w");
    before = take(h, id);
  }
  SECTION("another worker takes it again") {
    harness h{billing(), store, {}, clk};
    auto t = take(h, id, "w-2");
    CHECK(t.attempt == before.attempt);
    CHECK(is_stale(h.eng.answer_task(completion(before, {}))));
    REQUIRE(h.eng.answer_task(completion(t, {{"by", "w-2"}})));
    CHECK(h.finish(id).data.at("by") == "w-2");
  }
  SECTION("the first worker's answer is taken") {
    harness h{billing(), store, {}, clk};
    REQUIRE(h.eventually([&] { return h.eng.stats().tasks_ready == 1; }));
    REQUIRE(h.eng.answer_task(completion(before, {{"by", "w-1"}})));
    CHECK(h.finish(id).data.at("by") == "w-1");
    auto got = h.eng.poll_tasks(poll_of("w-2"));
    REQUIRE(got);
    CHECK(got->empty());
  }
}

TEST_CASE("a task carries the input's secrets to the worker and nowhere else", "[actors][tasks]") {
  engine_config ec;
  ec.secret_keys = std::make_shared<const key_ring>(test::test_ring("k1 " + test::key_a + "\n"));
  auto reg = one(workflow("w", 1).step(1, make_task_step("charge", "billing")).secret("/card"));
  harness h{std::move(reg), nullptr, ec};
  auto id = h.start("w", {{"card", "4111-secret"}});
  auto t = take(h, id);
  CHECK(t.input.at("card") == "4111-secret");
  REQUIRE(h.eng.answer_task(completion(t, {})));
  h.finish(id);
  CHECK(test::stored_text(*h.store, id).find("4111-secret") == std::string::npos);
  CHECK(boost::json::serialize(h.eng.get(id)->data).find("4111-secret") == std::string::npos);
}

TEST_CASE("bad polls and tokens are refused with what is wrong", "[actors][tasks]") {
  harness h{billing()};
  auto refused = [&](task_poll p) {
    auto got = h.eng.poll_tasks(p);
    return got ? std::string{} : message_of(got.error());
  };
  CHECK(refused({"", "w", 1, duration{0}}).find("queue") != std::string::npos);
  CHECK(refused({"billing", "w", 0, duration{0}}).find("max") != std::string::npos);
  CHECK(refused({"billing", "w", 1, std::chrono::hours(1)}).find("wait") != std::string::npos);
  task_answer a;
  a.token = "no-dots";
  auto got = h.eng.answer_task(a);
  REQUIRE_FALSE(got);
  CHECK(code_of(got.error()) == errc::invalid_argument);
  a.token = "op-1.1.abc";
  CHECK(is_stale(h.eng.answer_task(a)));
}

TEST_CASE("queues show their ready and taken tasks, oldest age and workers", "[actors][tasks]") {
  harness h{billing()};
  auto a = h.start("w");
  REQUIRE(h.eventually([&] { return h.eng.stats().tasks_ready == 1; }));
  // Older by its attempt's start, whichever reaches the broker first.
  h.clk->advance(1s);
  auto b = h.start("w");
  REQUIRE(h.eventually([&] { return h.eng.stats().tasks_ready == 2; }));
  auto got = h.eng.poll_tasks({"billing", "w-1", 1, duration{0}});
  REQUIRE(got);
  REQUIRE(got->size() == 1);
  CHECK(got->front().operation_id == a); // oldest first
  auto qs = h.eng.task_queues();
  REQUIRE(qs);
  REQUIRE(qs->size() == 1);
  CHECK(qs->front().name == "billing");
  CHECK(qs->front().ready == 1);
  CHECK(qs->front().taken == 1);
  CHECK(qs->front().oldest_ready.has_value());
  REQUIRE(qs->front().workers.size() == 1);
  CHECK(qs->front().workers.front().name == "w-1");
  (void)b;
}
