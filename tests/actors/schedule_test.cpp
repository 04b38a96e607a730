// Schedules on the virtual clock: fires at each due time, the overlap
// policies, catch-up after a restart, pause, resume, trigger, delete, edits.
#include <condition_variable>
#include <mutex>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/gate.hpp"
#include "tests/actors/harness.hpp"
#include "tests/engine/test_keys.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::gate;
using test::harness;
using test::ok;
using test::one;

namespace {

/// A step that blocks until the test opens it: an operation that runs for

schedule every(const std::string& id, duration period, const std::string& wf = "w") {
  schedule s;
  s.id = id;
  s.workflow = wf;
  s.every = period;
  return s;
}

bool is_fire(const event& e, event_type type, const std::string& sched) {
  if (e.type != type)
    return false;
  auto* v = e.extra.if_contains("schedule");
  return v && v->is_string() && v->as_string() == sched;
}

std::string fire_time_of(const event& e) {
  return std::string{e.extra.at("fire_time").as_string()};
}

/// The fire times of `sched`'s events of `type` in the log, in order.
std::vector<std::string> fire_times(harness& h, event_type type, const std::string& sched) {
  auto log = h.eng.events(0, 100'000);
  REQUIRE(log);
  std::vector<std::string> out;
  for (auto& e : *log)
    if (is_fire(e, type, sched))
      out.push_back(fire_time_of(e));
  return out;
}

/// Waits until `sched` has `n` events of `type`.
bool await_fires(harness& h, event_type type, const std::string& sched, size_t n) {
  return h.eventually([&] { return fire_times(h, type, sched).size() >= n; });
}

std::string at(const harness& h, duration d) {
  return format_time(h.clk->now() + d);
}

schedule_view view(harness& h, const std::string& id) {
  auto v = h.eng.get_schedule(id);
  REQUIRE(v);
  return *v;
}

/// Returns the operation of `sched`'s first fire.
std::string fire_op(harness& h, const std::string& sched) {
  list_filter f;
  f.schedule = sched;
  auto page = h.eng.list(f);
  REQUIRE(page);
  REQUIRE_FALSE(page->items.empty());
  return page->items.back().id;
}

} // namespace

TEST_CASE("a schedule fires at each due time, once, with the fire's key", "[actors][schedule]") {
  harness h{one(workflow("w", 1).step(1, ok("a")))};
  auto tick = every("tick", 10s);
  tick.overlap = overlap_policy::allow; // the test does not wait for each operation
  auto created = h.eng.create_schedule(tick);
  REQUIRE(created);
  CHECK(created->created);
  auto t0 = h.clk->now();
  REQUIRE(created->view.next_fire == t0 + 10s);
  for (int i = 1; i <= 3; ++i) {
    h.clk->advance(10s);
    REQUIRE(await_fires(h, event_type::schedule_fired, "tick", i));
  }
  CHECK(fire_times(h, event_type::schedule_fired, "tick")
        == std::vector<std::string>{format_time(t0 + 10s), format_time(t0 + 20s),
                                    format_time(t0 + 30s)});
  list_filter f;
  f.schedule = "tick";
  auto page = h.eng.list(f);
  REQUIRE(page);
  REQUIRE(page->items.size() == 3);
  for (auto& op : page->items) {
    CHECK(op.schedule_id == "tick");
    CHECK(op.idempotency_key.rfind("schedule:tick:", 0) == 0);
    h.finish(op.id);
  }
  REQUIRE(h.eventually([&] { return view(h, "tick").schedule.fired == 3; }));
  auto v = view(h, "tick");
  CHECK(v.schedule.last_fire == t0 + 30s);
  CHECK(v.schedule.last_operation == page->items.front().id);
  CHECK(v.next_fire == t0 + 40s);
  CHECK(h.eng.stats().schedule_fire_lateness_seconds.count == 3);
  // Who did what: a schedule's own fires name it.
  auto log = h.eng.events(0, 100'000);
  REQUIRE(log);
  size_t named = 0;
  for (auto& e : *log)
    if (e.type == event_type::schedule_fired || e.type == event_type::operation_created) {
      CHECK(e.by == "schedule:tick");
      ++named;
    }
  CHECK(named == 6);
}

TEST_CASE("creating a schedule: the same body again, another body, bad input",
          "[actors][schedule]") {
  harness h{one(workflow("w", 1).step(1, ok("a")))};
  auto s = every("s1", 1min);
  REQUIRE(h.eng.create_schedule(s));
  auto again = h.eng.create_schedule(s);
  REQUIRE(again);
  CHECK_FALSE(again->created);
  CHECK(again->view.schedule.revision == 1);
  auto other = s;
  other.every = 2min;
  auto conflict = h.eng.create_schedule(other);
  REQUIRE_FALSE(conflict);
  CHECK(code_of(conflict.error()) == errc::idempotency_conflict);

  auto bad_cron = every("s2", 1min);
  bad_cron.every.reset();
  bad_cron.cron = "0 25 * * *";
  auto res = h.eng.create_schedule(bad_cron);
  REQUIRE_FALSE(res);
  CHECK(code_of(res.error()) == errc::invalid_argument);
  CHECK_THAT(message_of(res.error()), Catch::StartsWith("cron: ") && Catch::Contains("(hour)"));
  auto bad_zone = every("s3", 1min);
  bad_zone.time_zone = "Mars/Olympus";
  res = h.eng.create_schedule(bad_zone);
  REQUIRE_FALSE(res);
  CHECK_THAT(message_of(res.error()), Catch::StartsWith("time_zone:"));
  res = h.eng.create_schedule(every("s4", 1min, "nope"));
  REQUIRE_FALSE(res);
  CHECK(code_of(res.error()) == errc::unknown_workflow);
  res = h.eng.create_schedule(every("s5", 500ms));
  REQUIRE_FALSE(res);
  CHECK(message_of(res.error()) == "every: at least 1s");
  auto listed = h.eng.list_schedules();
  REQUIRE(listed);
  REQUIRE(listed->size() == 1); // nothing of the refused ones was written
  CHECK(h.store->load_schedules()->size() == 1);
}

TEST_CASE("overlap skip: a fire while the last operation runs is skipped", "[actors][schedule]") {
  gate g;
  harness h{one(workflow("w", 1).step(1, g.step("slow")))};
  REQUIRE(h.eng.create_schedule(every("sk", 10s)));
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "sk", 1));
  auto second = at(h, 10s);
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_skipped, "sk", 1));
  CHECK(fire_times(h, event_type::schedule_skipped, "sk") == std::vector<std::string>{second});
  g.release();
  auto first = view(h, "sk").schedule.last_operation;
  h.finish(first);
  auto third = at(h, 10s);
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "sk", 2));
  CHECK(fire_times(h, event_type::schedule_fired, "sk").back() == third);
  REQUIRE(h.eventually([&] { return view(h, "sk").schedule.skipped == 1; }));
}

TEST_CASE("overlap queue: a fire waits for the last operation to end", "[actors][schedule]") {
  gate g;
  harness h{one(workflow("w", 1).step(1, g.step("slow")))};
  auto s = every("q", 10s);
  s.overlap = overlap_policy::queue;
  REQUIRE(h.eng.create_schedule(s));
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "q", 1));
  auto second = at(h, 10s);
  h.clk->advance(10s);
  // It waits: its time has passed, and it did not fire.
  REQUIRE(h.eventually([&] { return view(h, "q").schedule.fired == 1; }));
  CHECK(fire_times(h, event_type::schedule_fired, "q").size() == 1);
  g.release(); // the first ends, the queued one fires at once
  REQUIRE(await_fires(h, event_type::schedule_fired, "q", 2));
  CHECK(fire_times(h, event_type::schedule_fired, "q").back() == second);
  CHECK(fire_times(h, event_type::schedule_skipped, "q").empty());
}

TEST_CASE("overlap allow: fires start while the last operation runs", "[actors][schedule]") {
  gate g;
  harness h{one(workflow("w", 1).step(1, g.step("slow")))};
  auto s = every("al", 10s);
  s.overlap = overlap_policy::allow;
  REQUIRE(h.eng.create_schedule(s));
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "al", 1));
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "al", 2));
  list_filter f;
  f.schedule = "al";
  auto page = h.eng.list(f);
  REQUIRE(page);
  CHECK(page->items.size() == 2);
  for (auto& op : page->items)
    CHECK_FALSE(is_terminal(op.state));
  g.release(); // before the engine stops: it waits for running steps
}

TEST_CASE("catch-up after a restart with the clock 3 h later", "[actors][schedule]") {
  auto policy = GENERATE(catch_up_policy::none, catch_up_policy::latest, catch_up_policy::all);
  CAPTURE(to_string(policy));
  auto store = std::make_shared<memory_store>();
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000) + 5min);
  auto reg = one(workflow("w", 1).step(1, ok("a")));
  auto s = every("c", 30min);
  s.catch_up = policy;
  s.overlap = overlap_policy::allow; // the fires caught up come at once
  {
    harness h{reg, store, {}, clk};
    REQUIRE(h.eng.create_schedule(s));
  }
  // Down for 3 h: the fires at :30, :00, ... six of them, are missed.
  clk->advance(3h);
  harness h{reg, store, {}, clk};
  int64_t fired = policy == catch_up_policy::all ? 6 : policy == catch_up_policy::latest ? 1 : 0;
  int64_t skipped = 6 - fired;
  CHECK(h.eventually([&] {
    auto v = view(h, "c").schedule;
    return v.fired == fired && v.skipped == skipped;
  }));
  CAPTURE(view(h, "c").schedule.fired, view(h, "c").schedule.skipped);
  CHECK(fire_times(h, event_type::schedule_fired, "c").size() == static_cast<size_t>(fired));
  auto v = view(h, "c");
  CHECK(v.next_fire == clk->now() + 25min);
  if (policy == catch_up_policy::latest)
    CHECK(fire_times(h, event_type::schedule_fired, "c")
          == std::vector<std::string>{format_time(clk->now() - 5min)});
}

TEST_CASE("pause, resume, trigger and delete while a fire is due", "[actors][schedule]") {
  harness h{one(workflow("w", 1).step(1, ok("a")))};
  auto p = every("p", 10s);
  p.overlap = overlap_policy::allow; // the trigger's operation may still run at the next fire
  REQUIRE(h.eng.create_schedule(p));
  auto paused = h.eng.pause_schedule("p", true);
  REQUIRE(paused);
  CHECK(paused->schedule.paused);
  CHECK_FALSE(paused->next_fire);
  h.clk->advance(25s); // two fires due while paused
  auto resumed = h.eng.pause_schedule("p", false);
  REQUIRE(resumed);
  // Not caught up: the next fire is the first after the resume.
  auto next = h.clk->now() + 5s;
  CHECK(resumed->next_fire == next);
  auto triggered = h.eng.trigger_schedule("p");
  REQUIRE(triggered);
  CHECK(triggered->created);
  CHECK(triggered->op.schedule_id == "p");
  REQUIRE(await_fires(h, event_type::schedule_fired, "p", 1));
  CHECK(fire_times(h, event_type::schedule_fired, "p").front() == format_time(h.clk->now()));
  h.clk->advance(5s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "p", 2));
  CHECK(fire_times(h, event_type::schedule_fired, "p").back() == format_time(next));
  CHECK(fire_times(h, event_type::schedule_skipped, "p").empty());

  auto gone = h.eng.delete_schedule("p");
  REQUIRE(gone);
  CHECK(gone->schedule.fired == 2);
  h.clk->advance(30s); // its next fire was due: nothing fires
  auto missing = h.eng.get_schedule("p");
  REQUIRE_FALSE(missing);
  CHECK(code_of(missing.error()) == errc::not_found);
  CHECK_FALSE(h.eng.trigger_schedule("p"));
  REQUIRE(h.eng.create_schedule(every("other", 10s)));
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "other", 1));
  CHECK(fire_times(h, event_type::schedule_fired, "p").size() == 2);
  list_filter f;
  f.schedule = "p";
  CHECK(h.eng.list(f)->items.size() == 2); // its operations stay
}

TEST_CASE("an edit takes effect from the next fire", "[actors][schedule]") {
  harness h{one(workflow("w", 1).step(1, ok("a")))};
  auto s = every("e", 10s);
  REQUIRE(h.eng.create_schedule(s));
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "e", 1));
  h.finish(fire_op(h, "e")); // the next fire does not meet it (overlap skip)
  s.every = 1min;
  s.input = {{"edited", true}};
  auto replaced = h.eng.replace_schedule(s);
  REQUIRE(replaced);
  CHECK(replaced->schedule.revision >= 3);
  CHECK(replaced->schedule.fired == 1);
  auto next = from_micros(1'800'000'000'000'000) + 1min;
  CHECK(replaced->next_fire == next);
  h.clk->advance(50s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "e", 2));
  CHECK(fire_times(h, event_type::schedule_fired, "e").back() == format_time(next));
  // schedule_fired comes with the operation's creation; the keeper writes
  // the schedule's own state (its last operation) after that.
  REQUIRE(h.eventually([&] { return view(h, "e").schedule.fired == 2; }));
  auto op = h.eng.get(view(h, "e").schedule.last_operation);
  REQUIRE(op);
  CHECK(op->input->at("edited").as_bool());
  auto missing = every("nobody", 10s);
  auto res = h.eng.replace_schedule(missing);
  REQUIRE_FALSE(res);
  CHECK(code_of(res.error()) == errc::not_found);
}

TEST_CASE("a schedule's secret input values are stored sealed and shown masked",
          "[actors][schedule][secrets]") {
  engine_config ec;
  ec.secret_keys = std::make_shared<const key_ring>(test::test_ring("a " + test::key_a));
  auto sees = make_step("sees", [](step_context& ctx) {
    ctx.data()["saw"] = ctx.input().at("creds").as_object().at("password") == "pw-secret-1";
    return done();
  });
  harness h{one(workflow("w", 1).secret("/creds/password").step(1, sees)), nullptr, ec};
  auto s = every("sec", 10s);
  s.input = {{"creds", {{"password", "pw-secret-1"}}}};
  auto created = h.eng.create_schedule(s);
  REQUIRE(created);
  CHECK(created->view.schedule.input.at("creds").at("password") == "***");
  auto stored = h.store->load_schedules();
  REQUIRE(stored);
  REQUIRE(stored->size() == 1);
  CHECK(boost::json::serialize(stored->front().input).find("pw-secret-1") == std::string::npos);
  auto again = h.eng.create_schedule(s); // the same body: the same schedule
  REQUIRE(again);
  CHECK_FALSE(again->created);
  h.clk->advance(10s);
  REQUIRE(await_fires(h, event_type::schedule_fired, "sec", 1));
  auto op = h.finish(fire_op(h, "sec"));
  CHECK(op.data.at("saw").as_bool());
  CHECK(test::stored_text(*h.store, op.id).find("pw-secret-1") == std::string::npos);
}
