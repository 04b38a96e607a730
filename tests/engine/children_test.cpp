// engine/children and the children transitions: slot keys, what a wait
// makes of its children, the counts the API shows, the checks of a
// definition, and ending a children wait.
#include <catch2/catch.hpp>

#include "engine/children.hpp"
#include "engine/progress.hpp"
#include "engine/step.hpp"
#include "engine/step_result.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::fresh;
using test::noop;
using test::t0;

namespace {

child_summary kid(std::string step, std::string key, op_state state, std::string error = {},
                  int32_t run = 0) {
  return {"op-" + step + key, std::move(step), std::move(key), run, state, {}, std::move(error)};
}

/// An operation whose steps are `a` and `b`, `b` sent back `b_run` times.
operation steps_ab(int32_t b_run = 0) {
  operation op;
  op.steps.resize(2);
  op.steps[0].name = "a";
  op.steps[1].name = "b";
  op.steps[1].run = b_run;
  return op;
}

children_wait needing(children_quorum q, size_t n = 0, bool accept = false) {
  children_wait w;
  w.quorum = q;
  w.n = n;
  w.accept_failures = accept;
  return w;
}

} // namespace

TEST_CASE("children: a slot's key reads back whatever its step and key hold", "[engine]") {
  auto k = child_key("op-1", "fan:out%", "a:b");
  CHECK(k == "child:op-1:fan%3Aout%25:a:b");
  auto slot = parse_child_key(k);
  REQUIRE(slot);
  CHECK(slot->parent == "op-1");
  CHECK(slot->step == "fan:out%");
  CHECK(slot->key == "a:b");
  CHECK(parse_child_key("child:op-1:fan:") == child_slot{"op-1", "fan", ""});
  CHECK_FALSE(parse_child_key("schedule:s1:2026"));
  CHECK_FALSE(parse_child_key("child:op-1"));
  CHECK_FALSE(parse_child_key("child:op-1:fan"));
  CHECK_FALSE(parse_child_key("child:op-1:f%41n:0"));
}

TEST_CASE("children: a step sent back by a repair has slots of its own", "[engine]") {
  auto k = child_key("op-1", "fan%", "0", 2);
  CHECK(k == "child:op-1:fan%25%232:0");
  CHECK(parse_child_key(k) == child_slot{"op-1", "fan%", "0", 2});
  CHECK(child_key("op-1", "fan", "0", 0) == child_key("op-1", "fan", "0"));
  CHECK(k != child_key("op-1", "fan%", "0", 1));
  CHECK_FALSE(parse_child_key("child:op-1:fan%23:0"));
  CHECK_FALSE(parse_child_key("child:op-1:fan%230:0"));
  CHECK_FALSE(parse_child_key("child:op-1:fan%232x:0"));
}

TEST_CASE("children: only an operation whose key names a slot of its parent is a child",
          "[engine]") {
  operation op;
  op.id = "op-9";
  op.parent_id = "op-1";
  op.idempotency_key = child_key("op-1", "fan", "3");
  op.state = op_state::failed;
  op.error = "no";
  auto c = summary_of(op);
  REQUIRE(c);
  CHECK(c->step == "fan");
  CHECK(c->key == "3");
  CHECK(c->error == "no");
  op.parent_id = "op-2";
  CHECK_FALSE(summary_of(op));
  op.parent_id = "op-1";
  op.idempotency_key = "mine";
  CHECK_FALSE(summary_of(op));
}

TEST_CASE("children: a wait watches its step's children, in slot order", "[engine]") {
  children_wait w;
  w.of_step = "b";
  auto watched =
    watched_children(w, steps_ab(),
                     {kid("b", "2", op_state::pending), kid("a", "0", op_state::pending),
                      kid("b", "10", op_state::pending)});
  REQUIRE(watched.size() == 2);
  CHECK(watched[0].key == "10");
  CHECK(watched[1].key == "2");
  w.of_step.clear();
  CHECK(watched_children(w, steps_ab(),
                         {kid("b", "0", op_state::pending), kid("a", "0", op_state::pending)})
          .front()
          .step
        == "a");
}

TEST_CASE("children: a wait watches only the children of their step's current run", "[engine]") {
  children_wait w;
  auto watched =
    watched_children(w, steps_ab(1),
                     {kid("b", "0", op_state::failed, "old", 0),
                      kid("b", "0", op_state::pending, {}, 1), kid("a", "0", op_state::pending)});
  REQUIRE(watched.size() == 2);
  CHECK(watched[0].step == "a");
  CHECK(watched[1].run == 1);
  CHECK(judge(w, watched).what == children_verdict::kind::waiting);
}

TEST_CASE("children: all, any and N of M", "[engine]") {
  std::vector<child_summary> kids{kid("s", "0", op_state::succeeded),
                                  kid("s", "1", op_state::in_progress),
                                  kid("s", "2", op_state::waiting)};
  auto all = judge(needing(children_quorum::all), kids);
  CHECK(all.what == children_verdict::kind::waiting);
  CHECK(all.need == 2);
  CHECK(judge(needing(children_quorum::any), kids).what == children_verdict::kind::met);
  CHECK(judge(needing(children_quorum::at_least, 1), kids).what == children_verdict::kind::met);
  auto two = judge(needing(children_quorum::at_least, 2), kids);
  CHECK(two.what == children_verdict::kind::waiting);
  CHECK(two.need == 1);
  kids[1].state = op_state::succeeded;
  kids[2].state = op_state::succeeded;
  CHECK(judge(needing(children_quorum::all), kids).what == children_verdict::kind::met);
  auto four = judge(needing(children_quorum::at_least, 4), kids);
  CHECK(four.what == children_verdict::kind::failed);
  CHECK(four.error == "waits for 4 children but the operation has 3");
}

TEST_CASE("children: no children at all", "[engine]") {
  CHECK(judge(needing(children_quorum::all), {}).what == children_verdict::kind::met);
  CHECK(judge(needing(children_quorum::any), {}).what == children_verdict::kind::failed);
}

TEST_CASE("children: a failure decides at once unless failures are accepted", "[engine]") {
  std::vector<child_summary> kids{kid("s", "0", op_state::in_progress),
                                  kid("s", "1", op_state::failed, "boom"),
                                  kid("s", "2", op_state::canceled)};
  auto strict = judge(needing(children_quorum::all), kids);
  CHECK(strict.what == children_verdict::kind::failed);
  CHECK(strict.error == "child '1' of step 's' (op-s1) failed: boom");
  auto lenient = judge(needing(children_quorum::all, 0, true), kids);
  CHECK(lenient.what == children_verdict::kind::waiting);
  CHECK(lenient.need == 1);
  CHECK(judge(needing(children_quorum::at_least, 2, true), kids).what
        == children_verdict::kind::met);
}

TEST_CASE("children: counts by state", "[engine]") {
  std::vector<operation> ops(4);
  ops[0].state = op_state::succeeded;
  ops[1].state = op_state::succeeded;
  ops[2].state = op_state::failed;
  ops[3].state = op_state::pending;
  CHECK(children_counts(ops)
        == boost::json::object{{"total", 4}, {"pending", 1}, {"succeeded", 2}, {"failed", 1}});
  CHECK(children_counts({}) == boost::json::object{{"total", 0}});
}

TEST_CASE("children: the checks of a children wait", "[engine]") {
  auto fan = noop("fan");
  CHECK(workflow("w", 1).step(1, noop("fan")).step(2, await_children("join", "fan")).validate());
  CHECK(workflow("w", 1).step(1, await_children("join")).validate());
  auto later = workflow("w", 1).step(1, await_children("join", "fan")).step(2, noop("fan"));
  CHECK_FALSE(later.validate());
  auto none = workflow("w", 1).step(1, noop("fan")).step(2, await_children("j", "fan").needing(0));
  auto err = none.validate();
  REQUIRE_FALSE(err);
  CHECK(to_string(err.error()).find("waits for 0 children") != std::string::npos);
}

TEST_CASE("children: a step's calls give slots, and a slot asked for twice fails the attempt",
          "[engine]") {
  auto clk = std::shared_ptr<const stepwise::clock>{};
  step_context ctx{"op-1", "fan", 1, std::make_shared<const boost::json::object>(), {}, {}, clk};
  CHECK(ctx.start_child("c", {}) == "0");
  CHECK(ctx.start_child("c", 3, {}, "x") == "x");
  CHECK(ctx.start_child("c", {}) == "2");
  CHECK(ctx.children_fault().empty());
  auto kids = ctx.take_children();
  REQUIRE(kids.size() == 3);
  CHECK(kids[1].version == 3);
  step_context again{"op-1", "fan", 1, std::make_shared<const boost::json::object>(), {}, {}, clk};
  again.start_child("c", {}, "1");
  again.start_child("c", {});
  CHECK(again.children_fault()
        == "start_child: step 'fan' asked twice for child '1' in one attempt");
}

TEST_CASE("transitions: a children wait that ends leaves its children's results", "[engine]") {
  workflow wf("w", 1);
  wf.step(1, noop("fan")).step(2, await_children("join", "fan")).step(3, noop("after"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::begin_next(op, wf, t0, ev);
  progress::note_children(op, "fan", {{"0", "op-a"}, {"1", "op-b"}});
  auto act = progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  CHECK(act.what == next_action::kind::await);
  CHECK(op.state == op_state::waiting);
  REQUIRE(progress::awaiting_children(op, wf));
  CHECK(op.data.at("children").at("fan").at("1") == "op-b");
  std::vector<child_summary> kids{kid("fan", "0", op_state::succeeded),
                                  kid("fan", "1", op_state::succeeded)};
  kids[1].data = {{"x", 1}};
  act = progress::end_children_wait(op, wf, kids, judge(*progress::awaiting_children(op, wf), kids),
                                    t0 + 5s, 0.5, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 2);
  CHECK(op.steps[1].state == step_state::succeeded);
  CHECK_FALSE(progress::awaiting_children(op, wf));
  auto& r = op.data.at("children_results").at("fan");
  CHECK(r.at("1")
        == boost::json::object{
          {"id", "op-fan1"}, {"state", "succeeded"}, {"data", {{"x", 1}}}, {"error", ""}});
}

TEST_CASE("transitions: a children wait that fails fails its step", "[engine]") {
  workflow wf("w", 1);
  wf.step(1, noop("fan")).step(2, await_children("join", "fan")).step(3, noop("after"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::begin_next(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  std::vector<child_summary> kids{kid("fan", "0", op_state::failed, "no")};
  auto verdict = judge(*progress::awaiting_children(op, wf), kids);
  auto act = progress::end_children_wait(op, wf, kids, verdict, t0 + 1s, 0.5, ev);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::failed);
  CHECK(op.error == "step 'join': the children: child '0' of step 'fan' (op-fan0) failed: no");
  CHECK(op.data.at("children_results").at("fan").at("0").at("state") == "failed");
}
