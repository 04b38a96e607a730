#include "tests/actors/harness.hpp"

#include "tests/eventually.hpp"

#include <thread>

#include <catch2/catch.hpp>

namespace stepwise::test {

registry one(workflow wf) {
  registry reg;
  REQUIRE(reg.add(std::move(wf)));
  return reg;
}

step_def ok(std::string name, std::atomic<int>* runs) {
  return make_step(std::move(name), [runs](step_context& ctx) {
    if (runs)
      ++*runs;
    ctx.data()[ctx.step_name()] = ctx.attempt();
    return done();
  });
}

step_def retries_once(std::string name) {
  return make_step(std::move(name), [](step_context& ctx) {
    return ctx.attempt() == 1 ? retry_after(std::chrono::seconds(30), "later") : done();
  });
}

boost::json::object keyed_input(const std::string& name, const std::string& tag) {
  return {{"name", name}, {"tag", tag}};
}

std::string stored_text(memory_store& st, const std::string& id) {
  std::string out;
  auto op = st.load(id);
  REQUIRE(op);
  REQUIRE(*op);
  auto& x = **op;
  if (x.input)
    out += boost::json::serialize(*x.input);
  out += boost::json::serialize(x.data) + x.error;
  for (auto& s : x.steps)
    out += s.last_error;
  for (auto& s : x.signals)
    out += boost::json::serialize(s.payload);
  auto evs = st.events_after(0, 1'000'000);
  REQUIRE(evs);
  for (auto& e : *evs)
    if (e.operation_id == id)
      out += e.error + e.state + boost::json::serialize(e.extra);
  return out;
}

harness::harness(registry reg, std::shared_ptr<memory_store> st, engine_config ec,
                 std::shared_ptr<virtual_clock> clock)
  : harness([&reg](caf::actor_system&, std::shared_ptr<virtual_clock>) { return std::move(reg); },
            std::move(st), std::move(ec), std::move(clock)) {
  // nop
}

harness::harness(registry_maker make, std::shared_ptr<memory_store> st, engine_config ec,
                 std::shared_ptr<virtual_clock> clock) {
  tune_actor_system(cfg);
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.console", caf::atom("none"));
  sys = std::make_unique<caf::actor_system>(cfg);
  clk =
    clock ? std::move(clock) : std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  store = st ? st : std::make_shared<memory_store>();
  ec.clock = clk;
  // Listening from the launch on: a subscription after it missed the
  // events of what recovery resumed at once (a restart test waited for
  // an end that had come and gone).
  events = std::make_unique<caf::scoped_actor>(*sys);
  // A scoped actor takes whatever comes: the cast cannot be checked.
  ec.listeners.push_back(caf::actor_cast<event_listener>(*events));
  auto e = engine::launch(*sys, ec, make(*sys, clk), store);
  REQUIRE(e);
  eng = *e;
}

harness::~harness() {
  eng.shutdown();
  events.reset();
  eng = engine{}; // its actor goes before its system
  // A clock shared with a later harness (a restart) must not keep timers
  // of this system's actors: a hidden actor (a monitor) still running
  // would be woken after its system ended, and poll for the next one.
  clk->forget(*sys);
  auto* gone = sys.get();
  sys.reset();
  clk->ended(gone);
}

std::string harness::start(const std::string& workflow, boost::json::object input,
                           std::string key) {
  start_request req;
  req.workflow = workflow;
  req.input = std::move(input);
  req.idempotency_key = std::move(key);
  auto res = eng.start(req);
  REQUIRE(res);
  return res->op.id;
}

std::string harness::start_with_deadline(const std::string& workflow, duration within) {
  start_request req;
  req.workflow = workflow;
  req.deadline = clk->now() + within;
  auto res = eng.start(req);
  REQUIRE(res);
  return res->op.id;
}

bool harness::eventually(const std::function<bool()>& pred) {
  return test::eventually(pred);
}

bool harness::await(const std::function<bool(const event&)>& pred) {
  for (auto& e : seen)
    if (pred(e))
      return true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool found = false;
  while (!found && std::chrono::steady_clock::now() < deadline) {
    (*events)->receive(
      [&](event_batch& b) {
        for (auto& e : b.events) {
          seen.push_back(e);
          found = found || pred(e);
        }
      },
      caf::after(std::chrono::milliseconds(100)) >> [] {});
  }
  return found;
}

void harness::pump(std::chrono::milliseconds d) {
  (*events)->receive(
    [&](event_batch& b) {
      for (auto& e : b.events)
        seen.push_back(e);
    },
    caf::after(d) >> [] {});
}

bool harness::await(const std::string& id, event_type type, const std::string& step) {
  return await([&](const event& e) {
    return e.operation_id == id && e.type == type && (step.empty() || e.step == step);
  });
}

bool harness::await_count(const std::string& id, event_type type, size_t n) {
  size_t seen_n = 0;
  return await(
    [&](const event& e) { return e.operation_id == id && e.type == type && ++seen_n == n; });
}

size_t harness::count(const std::string& id, event_type type) const {
  size_t n = 0;
  for (auto& e : seen)
    n += e.operation_id == id && e.type == type ? 1 : 0;
  return n;
}

operation harness::finish(const std::string& id) {
  auto done = await([&](const event& e) { return e.operation_id == id && is_terminal(e.type); });
  REQUIRE(done);
  auto op = eng.wait(id, std::chrono::seconds(10));
  REQUIRE(op);
  return *op;
}

} // namespace stepwise::test
