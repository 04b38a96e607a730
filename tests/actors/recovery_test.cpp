// Restarts, store outages and requests that race an operation's end.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

TEST_CASE("an empty engine handle answers with an error", "[actors]") {
  engine none;
  auto res = none.start({"w", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(!res);
  CHECK(code_of(res.error()) == errc::invalid_argument);
  CHECK(!none.get("op-1"));
}

TEST_CASE("an engine shut down as soon as it started ends cleanly", "[actors]") {
  // CI found the schedule keeper reading its first page after shutdown had
  // emptied the readers' list (a division by zero picking one).
  auto later = make_step("later", [](step_context&) { return retry_after(1ms, "later"); });
  auto st = std::make_shared<memory_store>();
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  for (int i = 0; i < 100; ++i) {
    harness h{one(workflow("w", 1).step(1, later)), st, {}, clk};
    h.start("w");
    clk->advance(1ms);
  }
  harness h{one(workflow("w", 1).step(1, later)), st, {}, clk};
  list_filter all;
  all.limit = 500;
  auto ops = h.eng.list(all);
  REQUIRE(ops);
  CHECK(ops->items.size() == 100);
}

TEST_CASE("an engine launched again on a clock that stood still names new operations anew",
          "[actors]") {
  // Seed of the bug: the second engine's first create took the first
  // one's id (same time, same counter, same node), was refused as a
  // duplicate, and the stored operation of that id was never resumed.
  auto wait = make_step("wait", [](step_context&) { return retry_after(1h, "later"); });
  auto st = std::make_shared<memory_store>();
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  std::string first;
  {
    harness h{one(workflow("w", 1).step(1, wait)), st, {}, clk};
    first = h.start("w");
    REQUIRE(h.await(first, event_type::step_retry_scheduled));
  }
  harness h{one(workflow("w", 1).step(1, wait)), st, {}, clk};
  auto second = h.start("w");
  CHECK(second != first);
  list_filter all;
  auto ops = h.eng.list(all);
  REQUIRE(ops);
  CHECK(ops->items.size() == 2);
}

TEST_CASE("a restarted engine resumes waiting operations from the store", "[actors]") {
  std::atomic<int> runs{0};
  auto twice = make_step("twice", [&](step_context& ctx) {
    ++runs;
    return ctx.attempt() == 1 ? retry_after(30s, "later") : done();
  });
  auto wf = [&] { return one(workflow("w", 1).step(1, twice).step(2, ok("b"))); };
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{wf(), st};
    id = h.start("w");
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
  }
  harness h{wf(), st};
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 2);
  CHECK(runs == 2);
}

TEST_CASE("a store outage delays checkpoints but fails and loses nothing", "[actors]") {
  std::atomic<int> runs{0};
  std::atomic<bool> gate{false};
  auto gated = make_step("a", [&](step_context&) {
    while (!gate)
      std::this_thread::yield();
    ++runs;
    return done();
  });
  harness h{one(workflow("w", 1).step(1, gated).step(2, ok("b", &runs)))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_started, "a"));
  h.store->fail_commits(true);
  gate = true;
  // The first step's result cannot be written: the writer keeps retrying
  // and the operation neither fails nor moves on.
  auto& m = h.eng.stats();
  auto waited = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (m.commit_errors.load() < 2 && std::chrono::steady_clock::now() < waited)
    std::this_thread::yield();
  CHECK(m.commit_errors.load() >= 2);
  CHECK(!h.eng.ready());
  auto during = h.store->load(id);
  REQUIRE(during);
  CHECK((*during)->state == op_state::in_progress);
  h.store->fail_commits(false);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(runs == 2);
  CHECK(h.eng.ready());
}

TEST_CASE("get and cancel never fail while operations finish", "[actors]") {
  // An operation's actor quits right after its terminal write: requests
  // that reach it just then are answered from the store.
  auto later = make_step("later", [](step_context& ctx) {
    return ctx.attempt() == 1 ? retry_after(1s, "later") : done();
  });
  engine_config ec;
  ec.passivate_after = std::chrono::hours(1);
  harness h{one(workflow("w", 1).step(1, later)), nullptr, ec};
  std::vector<std::string> ids;
  for (int i = 0; i < 300; ++i)
    ids.push_back(h.start("w"));
  for (auto& id : ids)
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
  // Every operation finishes while the requests below reach it.
  h.clk->advance(1s);
  size_t errors = 0;
  for (int round = 0; round < 20; ++round)
    for (auto& id : ids) {
      if (!h.eng.get(id))
        ++errors;
      auto c = h.eng.cancel(id);
      if (!c && code_of(c.error()) != errc::invalid_state)
        ++errors;
    }
  CHECK(errors == 0);
  for (auto& id : ids) {
    auto op = h.finish(id);
    CHECK((op.state == op_state::succeeded || op.state == op_state::canceled));
    CHECK(h.count(id, event_type::operation_succeeded) + h.count(id, event_type::operation_canceled)
          == 1);
  }
}

namespace {

/// A memory store whose recovery reads after the first page wait until the
/// test lets them through.
class held_pages_store : public memory_store {
public:
  caf::expected<std::vector<operation>> load_active_page(
    const std::optional<active_position>& after, size_t limit) override {
    if (after && hold_) {
      std::unique_lock<std::mutex> guard{mtx_};
      waiting_ = true;
      cv_.wait(guard, [&] { return !hold_; });
    }
    pages_ += 1;
    return memory_store::load_active_page(after, limit);
  }

  void hold() {
    hold_ = true;
  }

  void release() {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      hold_ = false;
    }
    cv_.notify_all();
  }

  /// Whether a page read waits for `release`.
  bool waiting() {
    std::lock_guard<std::mutex> guard{mtx_};
    return waiting_;
  }

  std::atomic<int> pages_{0};

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  std::atomic<bool> hold_{false};
  bool waiting_ = false;
};

} // namespace

TEST_CASE("recovery reads a page at a time and holds requests until the last page", "[actors]") {
  auto later = make_step("later", [](step_context& ctx) {
    return ctx.attempt() == 1 ? retry_after(1h, "later") : done();
  });
  auto wf = [&] { return one(workflow("w", 1).step(1, later).step(2, ok("b"))); };
  auto st = std::make_shared<held_pages_store>();
  std::vector<std::string> ids;
  std::shared_ptr<virtual_clock> clk;
  {
    harness h{wf(), st};
    clk = h.clk;
    for (int i = 0; i < 10; ++i) {
      ids.push_back(h.start("w"));
      REQUIRE(h.await(ids.back(), event_type::step_retry_scheduled));
      h.clk->advance(1ms); // distinct creation times: a page order to check
    }
  }
  st->hold();
  st->pages_ = 0;
  engine_config ec;
  ec.recovery_page = 3;
  harness h{wf(), st, ec, clk};
  // The first page was read by the launch; the second waits.
  REQUIRE(h.eventually([&] { return st->waiting(); }));
  CHECK(!h.eng.ready());
  // A cancel of an operation on the last page, in the engine's mailbox
  // before that page is read: it must not find the operation absent.
  caf::scoped_actor self{*h.sys};
  auto asked = self->request(h.eng.dispatcher(), caf::infinite, command_atom::value, ids.back(),
                             command_request{command::cancel, "tester"});
  st->release();
  bool answered = false;
  asked.receive(
    [&](operation& op) {
      answered = true;
      CHECK(op.state == op_state::canceled);
    },
    [&](caf::error& err) { FAIL("cancel failed: " << h.sys->render(err)); });
  CHECK(answered);
  CHECK(h.eventually([&] { return h.eng.ready(); }));
  CHECK(st->pages_ == 4); // 3 + 3 + 3 + 1, the last one short
  // Every other operation was resumed: due in an hour, they finish then.
  h.clk->advance(1h);
  for (size_t i = 0; i + 1 < ids.size(); ++i)
    CHECK(h.finish(ids[i]).state == op_state::succeeded);
}

TEST_CASE("timers an operation's actor leaves behind leave the pending gauge", "[actors]") {
  // A canceled sleep, a retry cut short by a deadline: their timers are
  // never delivered, and the gauge must not keep counting them.
  auto again = make_step("again", [](step_context&) { return retry_after(1h, "later"); });
  auto reg = one(workflow("sleeper", 1).step(1, make_sleep("nap", 1h)));
  REQUIRE(reg.add(workflow("retrier", 1).step(1, again)));
  harness h{std::move(reg)};
  auto& m = h.eng.stats();
  auto nap = h.start("sleeper");
  REQUIRE(h.await(nap, event_type::operation_waiting, "nap"));
  auto late = h.start_with_deadline("retrier", 10min);
  REQUIRE(h.await(late, event_type::step_retry_scheduled));
  REQUIRE(h.eng.cancel(nap));
  h.clk->advance(10min);
  CHECK(h.finish(nap).state == op_state::canceled);
  CHECK(h.finish(late).state == op_state::failed);
  CHECK(h.eventually([&] { return m.operations_live.load() == 0; }));
  CHECK(m.timers_pending.load() == 0);
}
