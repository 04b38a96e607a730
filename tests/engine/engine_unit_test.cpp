#include <catch2/catch.hpp>

#include "engine/admission.hpp"
#include "engine/commands.hpp"
#include "engine/errc.hpp"
#include "engine/progress.hpp"
#include "engine/redact.hpp"
#include "engine/registry.hpp"
#include "engine/retry_policy.hpp"
#include "engine/time.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::noop;
using test::t0;

namespace {

operation fresh(const workflow& wf) {
  operation op;
  op.id = "op-1";
  op.workflow = wf.name();
  op.workflow_version = wf.version();
  op.input = std::make_shared<const boost::json::object>();
  for (auto& s : wf.steps())
    op.steps.push_back(step_record{s.name, s.weight, step_state::pending, 0, {}, {}, {}, 0, {}});
  return op;
}

} // namespace

TEST_CASE("outcomes are exactly one of done, retry, fail", "[engine]") {
  CHECK(done().what == outcome::kind::done);
  auto r = retry_after(5s, "busy");
  CHECK(r.what == outcome::kind::retry);
  CHECK(r.delay == 5s);
  CHECK(r.message == "busy");
  auto f = fail("bad");
  CHECK(f.what == outcome::kind::fail);
  CHECK(f.message == "bad");
}

TEST_CASE("backoff grows by the multiplier and stops at the maximum", "[engine]") {
  retry_policy p;
  p.initial_interval = 1s;
  p.multiplier = 2.0;
  p.max_interval = 10s;
  CHECK(p.backoff(1, 0.5) == 1s);
  CHECK(p.backoff(2, 0.5) == 2s);
  CHECK(p.backoff(4, 0.5) == 8s);
  CHECK(p.backoff(5, 0.5) == 10s);
  CHECK(p.backoff(50, 0.5) == 10s);
}

TEST_CASE("jitter stays within its bounds", "[engine]") {
  retry_policy p;
  p.initial_interval = 1s;
  p.jitter = 0.2;
  CHECK(p.backoff(1, 0.0) == 800ms);
  CHECK(p.backoff(1, 0.999999) <= 1200ms);
  CHECK(p.backoff(1, 0.999999) > 1199ms);
  for (double u = 0; u < 1; u += 0.01) {
    auto d = p.backoff(1, u);
    CHECK(d >= 800ms);
    CHECK(d <= 1200ms);
  }
}

TEST_CASE("max attempts and max elapsed bound retries from the first attempt", "[engine]") {
  retry_policy p;
  p.max_attempts = 3;
  CHECK(p.allows(2, t0, t0 + 1h));
  CHECK(!p.allows(3, t0, t0 + 1s));
  retry_policy q;
  q.max_elapsed = 10s;
  CHECK(q.allows(100, t0, t0 + 10s));
  CHECK(!q.allows(1, t0, t0 + 11s));
}

TEST_CASE("registration checks definitions and orders steps by weight", "[engine]") {
  registry reg;
  auto bad = reg.add(workflow("w", 1).step(1, noop("a")).step(2, noop("a")));
  REQUIRE(!bad);
  CHECK(code_of(bad.error()) == static_cast<uint8_t>(errc::invalid_definition));
  CHECK(message_of(bad.error()).find("'a' is used twice") != std::string::npos);
  CHECK(!reg.add(workflow("w", 1)));
  CHECK(!reg.add(workflow("", 1).step(1, noop("a"))));
  CHECK(!reg.add(workflow("w", 1).step(0, noop("a"))));
  CHECK(!reg.add(workflow("w", 1).step(1, noop("a")).secret("no-slash")));
  REQUIRE(reg.add(workflow("w", 1).step(20, noop("b")).step(10, noop("a")).step(20, noop("c"))));
  REQUIRE(reg.add(workflow("w", 2).step(1, noop("x"))));
  auto dup = reg.add(workflow("w", 2).step(1, noop("x")));
  CHECK(!dup);
  auto v1 = reg.find("w", 1);
  REQUIRE(v1);
  std::vector<std::string> names;
  for (auto& s : v1->steps())
    names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"a", "b", "c"});
  CHECK(reg.find("w")->version() == 2);
  CHECK(reg.find("nope") == nullptr);
  CHECK(reg.find("w", 3) == nullptr);
}

TEST_CASE("a definition is in execution order before it is registered", "[engine]") {
  auto wf = workflow("w", 1)
              .step(30, noop("c"))
              .step(10, noop("a"))
              .step(20, noop("b"))
              .step(10, noop("a2"));
  std::vector<std::string> names;
  for (auto& s : wf.steps())
    names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"a", "a2", "b", "c"});
  CHECK(wf.index_of("b") == 2);
}

TEST_CASE("commands are allowed by state and refused with the reason", "[engine]") {
  auto wf = workflow("w", 1).step(1, noop("a"));
  auto op = fresh(wf);
  op.state = op_state::in_progress;
  CHECK(allows(op, command::cancel, t0));
  CHECK(!allows(op, command::retry, t0));
  auto no = refusal(op, command::retry, t0);
  CHECK(code_of(no) == static_cast<uint8_t>(errc::invalid_state));
  CHECK(message_of(no)
        == "operation 'op-1' is in_progress: only failed operations, and "
           "succeeded ones with incomplete steps, can be retried");
  CHECK(allows(op, command::pause, t0));
  CHECK(!allows(op, command::resume, t0));
  op.state = op_state::failed;
  CHECK(allows(op, command::retry, t0));
  CHECK(!allows(op, command::cancel, t0));
  CHECK(!allows(op, command::pause, t0));
  op.state = op_state::succeeded;
  CHECK(!allows(op, command::retry, t0));
  CHECK(message_of(refusal(op, command::retry, t0)).find("no incomplete steps")
        != std::string::npos);
  op.steps[0].state = step_state::incomplete;
  CHECK(allows(op, command::retry, t0));
  op.state = op_state::paused;
  CHECK(allows(op, command::resume, t0));
  CHECK(allows(op, command::cancel, t0));
  CHECK(!allows(op, command::pause, t0));
  op.state = op_state::pending;
  op.admission = admission::queued;
  op.blocked_by = "op-0";
  CHECK(!allows(op, command::pause, t0));
  CHECK(message_of(refusal(op, command::pause, t0)).find("queued (blocked by 'op-0')")
        != std::string::npos);
  CHECK(allows(op, command::cancel, t0));
}

TEST_CASE("a retry is refused once the deadline has passed", "[engine]") {
  auto wf = workflow("w", 1).step(1, noop("a"));
  auto op = fresh(wf);
  op.state = op_state::failed;
  op.deadline = t0 + 10s;
  CHECK(allows(op, command::retry, t0 + 9s));
  CHECK(!allows(op, command::retry, t0 + 10s));
  auto no = refusal(op, command::retry, t0 + 11s);
  CHECK(code_of(no) == static_cast<uint8_t>(errc::invalid_state));
  CHECK(message_of(no).find("deadline") != std::string::npos);
  CHECK(message_of(no).find("start a new operation") != std::string::npos);
  // Other refusals keep their reason.
  op.state = op_state::in_progress;
  CHECK(message_of(refusal(op, command::retry, t0 + 11s)).find("only failed") != std::string::npos);
}

TEST_CASE("an admission round admits by key and limit in creation order", "[engine][admission]") {
  using a = admission;
  std::vector<admission_row> rows{
    {"o1", "prov", "k1", a::admitted, op_state::in_progress, ""},
    {"o2", "deprov", "k1", a::queued, op_state::pending, ""},
    {"o3", "prov", "k1", a::queued, op_state::pending, "o2"},
    {"o4", "prov", "k2", a::queued, op_state::pending, ""},
    {"o5", "prov", "k3", a::queued, op_state::pending, ""},
    {"o6", "prov", "", a::queued, op_state::pending, ""},
    {"o7", "deprov", "k4", a::admitted, op_state::pending, ""},
  };
  auto round = plan_round(rows, {{"prov", 2}}, time_point{});
  // o4 takes prov's second slot; o5 and o6 wait for a slot, in order; o2
  // and o3 wait for k1 (o3 behind o2, which it already knew).
  std::map<std::string, std::string> changed;
  for (auto& u : round.updates)
    changed[u.id] = u.admission == a::admitted ? "admitted" : u.blocked_by;
  CHECK(changed
        == std::map<std::string, std::string>{
          {"o2", "o1"}, {"o4", "admitted"}, {"o5", "limit:prov"}, {"o6", "limit:prov"}});
  CHECK(round.events.size() == 3); // o2, o5, o6: blockers that changed
  for (auto& e : round.events)
    CHECK(e.type == event_type::operation_queued);
  CHECK(round.startable == std::vector<std::string>{"o4", "o7"});
  CHECK(round.counts["prov"].running == 2);
  CHECK(round.counts["prov"].queued == 3);
  CHECK(round.counts["deprov"].running == 1);
  CHECK(round.counts["deprov"].queued == 1);
}

TEST_CASE("times format as RFC 3339 with milliseconds and parse back", "[engine]") {
  auto t = parse_time("2026-11-22T07:40:00.123Z");
  REQUIRE(t);
  CHECK(format_time(*t) == "2026-11-22T07:40:00.123Z");
  CHECK(parse_time("2026-11-22T08:40:00.123+01:00") == t);
  CHECK(format_time(from_micros(0)) == "1970-01-01T00:00:00.000Z");
  CHECK(!parse_time("2026-13-22T07:40:00Z"));
  CHECK(!parse_time("yesterday"));
  CHECK(!parse_time("2026-11-22T07:40:00"));
}

TEST_CASE("transitions: a retry waits, the wake starts the next attempt", "[engine]") {
  workflow wf("w", 1);
  wf.step(1, noop("a")).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  auto act = progress::begin_next(op, wf, t0, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.attempt == 1);
  CHECK(op.state == op_state::in_progress);
  act = progress::apply_result(op, wf, 0, retry_after(3s, "x"), false, 1ms, t0, 0.5, ev);
  CHECK(act.what == next_action::kind::wait);
  CHECK(act.due == t0 + 3s);
  CHECK(op.state == op_state::waiting);
  CHECK(op.wake_at == t0 + 3s);
  act = progress::wake(op, wf, t0 + 3s, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.attempt == 2);
  act = progress::apply_result(op, wf, 0, done(), false, 1ms, t0 + 3s, 0.5, ev);
  CHECK(act.step == 1);
  act = progress::apply_result(op, wf, 1, done(), false, 1ms, t0 + 3s, 0.5, ev);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::succeeded);
  size_t terminal = 0;
  for (auto& e : ev)
    terminal += is_terminal(e.type) ? 1 : 0;
  CHECK(terminal == 1);
}

TEST_CASE("transitions: recovery re-runs an interrupted step as a new attempt", "[engine]") {
  workflow wf("w", 1);
  wf.step(1, noop("a")).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::begin_next(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  // Crash while "b" runs: recovery starts attempt 2 of "b", never "a".
  ev.clear();
  auto act = progress::recover(op, wf, t0 + 1s, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 1);
  CHECK(act.attempt == 2);
  CHECK(op.steps[0].attempts == 1);
}

TEST_CASE("secrets are masked by path and scrubbed from text", "[engine]") {
  boost::json::object in{{"a", {{"pw", "s3cret"}}}, {"b", 1}};
  auto masked = mask_paths(in, {"/a/pw", "/missing"});
  CHECK(masked.at("a").at("pw") == "***");
  CHECK(masked.at("b") == 1);
  transient_map tr{{"tok", {boost::json::value("t0k"), true}},
                   {"pub", {boost::json::value("open"), false}}};
  auto secrets = secret_strings(in, {"/a/pw"}, tr);
  CHECK(scrub("s3cret and t0k and open", secrets) == "*** and *** and open");
}
