// A slow store (every commit takes 500 ms) under a burst of creates, in
// process: requests that wait too long time out (503 over HTTP), new work
// beyond the backlog bound is refused at once and says so (503
// overloaded), the writer's batches stay within the bound, and nothing
// acknowledged, or that timed out, is lost. A burst beyond the create
// window is written a window at a time, every start answered in order.
#include <atomic>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include <catch2/catch.hpp>

#include "actors/messages.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "http/errors.hpp"
#include "storage/open_store.hpp"
#include "tests/faults/fault_support.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

/// Another store, slower: each commit first waits `delay`. Records the
/// largest batch it was given.
class slow_store : public store {
public:
  explicit slow_store(store_ptr inner) : inner_(std::move(inner)) {
    // nop
  }

  std::atomic<int> delay_ms{0};
  std::atomic<size_t> largest_batch{0};
  /// The most creates one commit was given.
  std::atomic<size_t> largest_creates{0};

  std::string backend() const override {
    return inner_->backend();
  }
  caf::expected<commit_result> commit(const std::vector<checkpoint>& batch) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    if (batch.size() > largest_batch)
      largest_batch = batch.size();
    size_t creates = 0;
    for (auto& cp : batch)
      creates += cp.what == checkpoint::kind::create ? 1 : 0;
    if (creates > largest_creates)
      largest_creates = creates;
    return inner_->commit(batch);
  }
  caf::expected<admission_round> admit(const admission_limits& l, time_point now) override {
    return inner_->admit(l, now);
  }
  caf::expected<std::optional<operation>> load(const std::string& id) override {
    return inner_->load(id);
  }
  caf::expected<std::optional<operation>> find_by_key(const std::string& key) override {
    return inner_->find_by_key(key);
  }
  caf::expected<std::vector<operation>> load_active_page(
    const std::optional<active_position>& after, size_t limit) override {
    return inner_->load_active_page(after, limit);
  }
  caf::expected<operation_page> list(const list_filter& f) override {
    return inner_->list(f);
  }
  caf::expected<std::vector<event>> events_after(int64_t after, size_t limit) override {
    return inner_->events_after(after, limit);
  }
  caf::expected<int64_t> last_seq() override {
    return inner_->last_seq();
  }

  caf::expected<std::vector<schedule>> load_schedules() override {
    return inner_->load_schedules();
  }

  caf::expected<std::optional<schedule>> load_schedule(const std::string& id) override {
    return inner_->load_schedule(id);
  }

private:
  store_ptr inner_;
};

registry one_step() {
  registry reg;
  workflow wf("one", 1);
  wf.step(10, make_step("only", [](step_context& ctx) {
            ctx.data()["done"] = true;
            return done();
          }));
  REQUIRE(reg.add(std::move(wf)));
  return reg;
}

start_request request(size_t i) {
  start_request req;
  req.workflow = "one";
  req.idempotency_key = "slow-" + std::to_string(i);
  return req;
}

/// An engine of `one_step` on a slow SQLite store of its own.
struct slow_engine {
  temp_dir dir;
  std::shared_ptr<slow_store> slow;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::expected<engine> eng{caf::error{}};

  explicit slow_engine(engine_config ec) {
    auto inner = open_store("sqlite:" + dir.path + "/slow.db");
    REQUIRE(inner);
    slow = std::make_shared<slow_store>(*inner);
    tune_actor_system(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
    ec.log = [](log_level, std::string_view) {};
    eng = engine::launch(*sys, ec, one_step(), slow);
    REQUIRE(eng);
  }

  /// Sends starts 0 to `n` - 1 at once, each waiting at most `timeout`,
  /// then hands each answer to `ok(i, result)` or `failed(i, error)`.
  template <class Ok, class Failed>
  void burst(size_t n, std::chrono::milliseconds timeout, Ok ok, Failed failed) {
    caf::scoped_actor self{*sys};
    auto send = [&](size_t i) {
      return self->request(eng->dispatcher(), timeout, start_atom::value, request(i));
    };
    std::vector<decltype(send(0))> pending;
    for (size_t i = 0; i < n; ++i)
      pending.push_back(send(i));
    for (size_t i = 0; i < n; ++i)
      pending[i].receive([&](start_result& r) { ok(i, r); },
                         [&](caf::error& err) { failed(i, err); });
  }
};

} // namespace

TEST_CASE("a slow store: timeouts and a bounded backlog, nothing lost", "[faults][slow]") {
  constexpr size_t burst = 1000;
  constexpr size_t max_backlog = 20;
  engine_config ec;
  ec.max_backlog = max_backlog;
  slow_engine fx{ec};
  auto& slow = fx.slow;
  auto& eng = fx.eng;
  slow->delay_ms = 500;
  // The burst: every create sent at once, each waiting at most 700 ms.
  std::vector<caf::error> errors(burst);
  std::vector<bool> answered(burst, false);
  fx.burst(
    burst, std::chrono::milliseconds(700), [&](size_t i, start_result&) { answered[i] = true; },
    [&](size_t i, caf::error& err) { errors[i] = std::move(err); });
  size_t ok = 0, timed_out = 0, overloaded = 0;
  std::string overloaded_message;
  for (size_t i = 0; i < burst; ++i) {
    if (answered[i]) {
      ++ok;
      continue;
    }
    auto api = http::from_engine(errors[i]);
    INFO(api.message);
    CHECK(api.status == 503);
    if (code_of(errors[i]) == errc::overloaded) {
      ++overloaded;
      overloaded_message = api.message;
    } else if (api.code == "timeout") {
      ++timed_out;
    } else {
      FAIL("neither answered, timed out nor overloaded: " + api.code);
    }
  }
  INFO("ok " << ok << ", timed out " << timed_out << ", overloaded " << overloaded);
  CHECK(overloaded > 0);
  CHECK(timed_out > 0);
  CHECK(overloaded_message.find("max backlog 20") != std::string::npos);
  // Without the bound, one batch would have held the whole burst.
  CHECK(slow->largest_batch <= 2 * max_backlog);
  // The store speeds up: what was acknowledged or timed out exists (the
  // same key finds it), what was refused was never written (the same key
  // creates it now); all of them run to the end.
  slow->delay_ms = 0;
  for (size_t i = 0; i < burst; ++i) {
    // As a client would: the same request again while the backlog drains.
    auto again = eng->start(request(i));
    for (int tries = 0; !again && tries < 500; ++tries) {
      INFO(message_of(again.error()));
      REQUIRE(http::from_engine(again.error()).status == 503);
      std::this_thread::sleep_for(20ms);
      again = eng->start(request(i));
    }
    REQUIRE(again);
    bool refused = !answered[i] && code_of(errors[i]) == errc::overloaded;
    if (answered[i] || refused)
      CHECK(again->created == refused);
    auto done = eng->wait(again->op.id, std::chrono::seconds(30));
    REQUIRE(done);
    CHECK(done->state == op_state::succeeded);
  }
  eng->shutdown();
}

TEST_CASE("a burst beyond the create window: every start answered, in order, a window at a time",
          "[faults][slow]") {
  constexpr size_t burst = 200;
  constexpr size_t window = 8;
  engine_config ec;
  ec.max_backlog = 0;
  ec.create_window = window;
  slow_engine fx{ec};
  auto& slow = fx.slow;
  auto& eng = fx.eng;
  slow->delay_ms = 5;
  std::vector<operation> ops(burst);
  fx.burst(
    burst, std::chrono::seconds(60),
    [&](size_t i, start_result& r) {
      CHECK(r.created);
      ops[i] = std::move(r.op);
    },
    [&](size_t i, caf::error& err) { FAIL("start " << i << ": " << message_of(err)); });
  // Made in the order sent: the waiting starts leave their queue in order.
  for (size_t i = 1; i < burst; ++i)
    CHECK(ops[i - 1].created_at <= ops[i].created_at);
  // Without the window the first commits would take the burst whole.
  INFO("largest batch " << slow->largest_batch);
  CHECK(slow->largest_creates <= window);
  for (auto& op : ops) {
    auto done = eng->wait(op.id, std::chrono::seconds(30));
    REQUIRE(done);
    CHECK(done->state == op_state::succeeded);
  }
  eng->shutdown();
}
