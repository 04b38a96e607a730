// Signals across SIGKILL restarts: a child process (wait_child) runs the
// operations and is killed at chosen points; another finishes the work.
// Each signal ends at most one wait, and each wait is ended once: checked
// on the event log and the stored operations after the last child exited.
#include <sys/wait.h>

#include <chrono>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/durability/wait_run.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

/// The "go" signal command for `id`.
std::string go(const std::string& id, const std::string& sid, const std::string& payload) {
  return "signal " + id + " go " + sid + " " + payload;
}

std::string started(piped_child& c, const std::string& wf, const std::string& input) {
  auto a = c.ask("start " + wf + " " + input);
  REQUIRE(a.rfind("ok ", 0) == 0);
  return a.substr(3);
}

void await(piped_child& c, const std::string& id, const char* type, const char* step) {
  REQUIRE(c.ask(std::string{"await "} + id + " " + type + " " + step) == "seen");
}

/// Tells the child to finish and checks that it did.
void finish(piped_child& c) {
  c.tell("finish");
  auto status = c.wait();
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}

/// The log and one operation of a run whose children all ended.
struct outcome_of {
  std::vector<event> log;
  operation op;

  outcome_of(const wait_run& run, const std::string& id) {
    auto st = run.open();
    REQUIRE(st);
    auto events = st->events_after(0, 10'000'000);
    REQUIRE(events);
    log = std::move(*events);
    CHECK(well_formed(log));
    auto loaded = st->load(id);
    REQUIRE(loaded);
    REQUIRE(loaded->has_value());
    op = **loaded;
  }

  size_t n(event_type type, const std::string& step = "") const {
    return count(log, op.id, type, step);
  }

  /// The operation ended once, each step succeeded once.
  void resumed_once(const std::string& wait_step) const {
    CHECK(op.state == op_state::succeeded);
    CHECK(n(event_type::operation_succeeded) == 1);
    CHECK(n(event_type::step_succeeded, wait_step) == 1);
    CHECK(n(event_type::step_succeeded, "after") == 1);
  }
};

} // namespace

TEST_CASE("a signal sent before the wait is taken once when the wait begins after a restart",
          "[durability][signals]") {
  wait_run run;
  std::string id;
  {
    auto c = run.spawn();
    REQUIRE(c);
    id = started(*c, "signalled", R"({"gate":"g1"})");
    await(*c, id, "step_started", "a");
    CHECK(c->ask(go(id, "s-1", R"({"n":1})")) == "accepted");
    c->kill();
  }
  auto c = run.spawn();
  REQUIRE(c);
  // The sender, unsure whether the first try got through, tries again.
  CHECK(c->ask(go(id, "s-1", R"({"n":2})")) == "duplicate");
  run.touch("gate-g1");
  finish(*c);
  outcome_of out{run, id};
  out.resumed_once("wait");
  CHECK(out.n(event_type::signal_received) == 1);
  // Taken as the wait began: the operation never waited.
  CHECK(out.n(event_type::operation_waiting) == 0);
  CHECK(out.op.data.at("go") == boost::json::object{{"n", 1}});
  REQUIRE(out.op.signals.size() == 1);
  CHECK(out.op.signals[0].consumed_by == "wait");
}

TEST_CASE("a signal sent during the wait resumes the operation once across a restart",
          "[durability][signals]") {
  wait_run run;
  std::string before_kill, after_restart;
  {
    auto c = run.spawn();
    REQUIRE(c);
    before_kill = started(*c, "signalled", "{}");
    after_restart = started(*c, "signalled", "{}");
    await(*c, before_kill, "operation_waiting", "wait");
    await(*c, after_restart, "operation_waiting", "wait");
    // Acknowledged: the signal and the end of the wait are in the store.
    CHECK(c->ask(go(before_kill, "-", R"({"k":1})")) == "accepted");
    c->kill();
  }
  auto c = run.spawn();
  REQUIRE(c);
  // The wait survived the kill (stored, the operation passivated).
  CHECK(c->ask(go(after_restart, "-", R"({"k":2})")) == "accepted");
  finish(*c);
  for (auto& [id, k] : {std::pair{before_kill, 1}, std::pair{after_restart, 2}}) {
    INFO(id);
    outcome_of out{run, id};
    out.resumed_once("wait");
    CHECK(out.n(event_type::signal_received) == 1);
    CHECK(out.n(event_type::operation_waiting, "wait") == 1);
    CHECK(out.op.data.at("go") == boost::json::object{{"k", k}});
  }
}

TEST_CASE("a signal_id repeated after a SIGKILL at a random point is stored once",
          "[durability][signals]") {
  wait_run run;
  std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> kill_after_us{0, 4000};
  constexpr int rounds = 6;
  std::vector<std::string> ids;
  std::vector<std::string> second; // the answer to the retry after the kill
  for (int r = 0; r <= rounds; ++r) {
    auto c = run.spawn();
    REQUIRE(c);
    if (r > 0) {
      // The sender did not see an answer before the kill: it tries again,
      // and again.
      auto sid = "s-" + std::to_string(r - 1);
      second.push_back(c->ask(go(ids.back(), sid, R"({"try":2})")));
      CHECK(c->ask(go(ids.back(), sid, R"({"try":3})")) == "duplicate");
    }
    if (r == rounds) {
      finish(*c);
      break;
    }
    ids.push_back(started(*c, "signalled", "{}"));
    await(*c, ids.back(), "operation_waiting", "wait");
    c->tell(go(ids.back(), "s-" + std::to_string(r), R"({"try":1})"));
    std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us(rng)));
    c->kill();
  }
  int lost = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    INFO("round " << i << ", the retry was " << second[i]);
    REQUIRE((second[i] == "accepted" || second[i] == "duplicate"));
    outcome_of out{run, ids[i]};
    out.resumed_once("wait");
    CHECK(out.n(event_type::signal_received) == 1);
    CHECK(out.op.signals.size() == 1);
    // The stored payload is the try that got through first.
    auto first_lost = second[i] == "accepted";
    lost += first_lost ? 1 : 0;
    CHECK(out.op.data.at("go") == boost::json::object{{"try", first_lost ? 2 : 1}});
  }
  WARN("first tries lost to the kill: " << lost << " of " << ids.size());
}

TEST_CASE("signals to an ended operation are refused before and after a restart",
          "[durability][signals]") {
  wait_run run;
  std::string id;
  auto refused = [](const std::string& answer) {
    return answer.rfind("err " + std::to_string(static_cast<int>(errc::invalid_state)) + " ", 0)
           == 0;
  };
  {
    auto c = run.spawn();
    REQUIRE(c);
    id = started(*c, "signalled", "{}");
    await(*c, id, "operation_waiting", "wait");
    CHECK(c->ask(go(id, "s-1", R"({"n":1})")) == "accepted");
    await(*c, id, "operation_succeeded", "-");
    // From the operation's last moments (its actor may still run) ...
    CHECK(refused(c->ask(go(id, "s-2", "{}"))));
    // ... while the retry of a signal it took still counts as delivered.
    CHECK(c->ask(go(id, "s-1", R"({"n":1})")) == "duplicate");
    c->kill();
  }
  auto c = run.spawn();
  REQUIRE(c);
  // ... and from the store alone after the restart.
  CHECK(refused(c->ask(go(id, "s-3", "{}"))));
  CHECK(refused(c->ask(go(id, "-", "{}"))));
  CHECK(c->ask(go(id, "s-1", "{}")) == "duplicate");
  finish(*c);
  outcome_of out{run, id};
  out.resumed_once("wait");
  CHECK(out.n(event_type::signal_received) == 1);
  CHECK(out.op.signals.size() == 1);
}

TEST_CASE("a signal racing the monitor's report ends the wait once across a SIGKILL",
          "[durability][signals][monitor]") {
  wait_run run;
  std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> kill_after_ms{0, 60};
  constexpr int rounds = 3;
  constexpr int per_round = 8;
  std::vector<std::string> ids;
  std::vector<std::string> retries;
  auto task = [](int r, int k) { return "t-" + std::to_string(r) + "-" + std::to_string(k); };
  auto ready = [](const std::string& id, int r, int k) {
    return "signal " + id + " ready s-" + std::to_string(r) + "-" + std::to_string(k)
           + R"( {"by":"signal"})";
  };
  for (int r = 0; r <= rounds; ++r) {
    auto c = run.spawn();
    REQUIRE(c);
    if (r > 0) // the senders of the last round retry after the kill
      for (int k = 0; k < per_round; ++k) {
        auto i = static_cast<size_t>((r - 1) * per_round + k);
        retries.push_back(c->ask(ready(ids[i], r - 1, k)));
      }
    if (r == rounds) {
      finish(*c);
      break;
    }
    for (int k = 0; k < per_round; ++k) {
      ids.push_back(started(*c, "watched",
                            R"({"infrastructure_id":")" + task(r, k)
                              + R"(","request_id":"r","deployment_location":{"name":"dc1"}})"));
      await(*c, ids.back(), "operation_waiting", "await");
    }
    // The task completes and the signal goes out at once (in either order):
    // the monitor's next poll, within 10 ms, races the signal.
    for (int k = 0; k < per_round; ++k) {
      auto& id = ids[static_cast<size_t>(r * per_round + k)];
      if (k % 2 == 0)
        c->tell(ready(id, r, k));
      run.touch("done-" + task(r, k));
      if (k % 2 == 1)
        c->tell(ready(id, r, k));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    c->kill();
  }
  int by_signal = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    // After the kill the retry is a duplicate, a new signal (the first was
    // lost), or refused (the monitor's report ended the operation first).
    INFO("operation " << i << ", the retry was " << retries[i]);
    CHECK((retries[i] == "accepted" || retries[i] == "duplicate"
           || retries[i].rfind("err 4 ", 0) == 0));
    outcome_of out{run, ids[i]};
    out.resumed_once("await");
    auto reports = out.n(event_type::infrastructure_task_completed);
    bool signal_won = !out.op.signals.empty() && out.op.signals[0].consumed_by == "await";
    // Exactly one of the two ended the wait, and only its result is kept.
    CHECK(reports + (signal_won ? 1 : 0) == 1);
    CHECK(out.op.data.contains("ready") == signal_won);
    CHECK(out.op.data.contains("outputs") != signal_won);
    CHECK(out.n(event_type::signal_received) <= 1);
    by_signal += signal_won ? 1 : 0;
  }
  WARN("the signal won " << by_signal << " of " << ids.size() << " races");
}
