// Control requests to any process on a shared store: a process that does
// not drive the operation stores the request for the one that does (or
// for whoever takes it over), which carries it out once.
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "engine/command_store.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "storage/pg_store.hpp"
#include "tests/actors/pg_engines.hpp"
#include "tests/eventually.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

// A short lease by default: claims, and reads of stored commands, every
// 333 ms (long enough for a sanitized build not to lose it).
engine launch_waiting(caf::actor_system& sys, store_ptr st,
                      std::chrono::milliseconds ttl = 1000ms) {
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(ttl);
  // These tests check the answer once the owner carried a request out,
  // not the bound on waiting for it: under the sanitizers beside other
  // suites, carrying out took longer than the default 5 s (seen in CI).
  ec.command_wait = std::chrono::seconds(60);
  auto eng = engine::launch(sys, ec, go_then_done(), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

std::string start_one_waiting(engine& e) {
  auto started = e.start({"w", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(started);
  auto id = started->op.id;
  REQUIRE(eventually([&] { return e.get(id)->state == op_state::waiting; }, 20s));
  return id;
}

bool has_state(engine& e, const std::string& id, op_state s) {
  auto op = e.get(id);
  return op && op->state == s;
}

std::string stored_commands_left(pg_test_schema& schema) {
  return schema.admin("SELECT count(*) FROM \"" + schema.name() + "\".operation_commands");
}

} // namespace

TEST_CASE("commands: pause, resume, signal and cancel through a process that does not drive "
          "the operation",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto a = launch_waiting(pg.system(), pg.schema().open());
  auto b = launch_waiting(pg.system(), pg.schema().open());
  auto id = start_one_waiting(a);
  // Both show who drives it.
  CHECK(a.get(id)->owner == a.owner());
  CHECK(b.get(id)->owner == a.owner());
  // B stores each request, A carries it out, and B answers once it did:
  // as one server would, with the operation as it is then.
  auto paused = b.pause(id, "bob");
  REQUIRE(paused);
  CHECK(paused->state == op_state::paused);
  CHECK(eventually([&] { return has_state(a, id, op_state::paused); }, 20s));
  auto resumed = b.resume(id);
  REQUIRE(resumed);
  CHECK(resumed->state == op_state::waiting);
  // A refusal by the stored state is B's own.
  auto again = b.resume(id);
  REQUIRE_FALSE(again);
  CHECK(code_of(again.error()) == errc::invalid_state);
  // A signal id is stored once, whichever process hears it again.
  auto sent = b.signal(id, {"go", boost::json::object{{"image", "img-1"}}, "s-1", "ann"});
  REQUIRE(sent);
  CHECK_FALSE(sent->duplicate);
  auto repeat = b.signal(id, {"go", boost::json::object{{"image", "img-2"}}, "s-1"});
  REQUIRE(repeat);
  CHECK(repeat->duplicate);
  REQUIRE(eventually([&] { return has_state(a, id, op_state::succeeded); }, 20s));
  auto done = b.get(id);
  REQUIRE(done);
  REQUIRE(done->signals.size() == 1);
  CHECK(done->data.at("go") == boost::json::object{{"image", "img-1"}});
  // A's events name who asked B.
  auto extra_of = [&](const std::string& type) {
    return pg.schema().admin("SELECT string_agg(COALESCE(extra, ''), ' ') FROM \""
                             + pg.schema().name() + "\".events WHERE operation_id = '" + id
                             + "' AND type = '" + type + "'");
  };
  CHECK(extra_of("operation_paused").find(R"("by":"bob")") != std::string::npos);
  CHECK(extra_of("signal_received").find(R"("by":"ann")") != std::string::npos);
  auto repeat_late = a.signal(id, {"go", boost::json::object{}, "s-1"});
  REQUIRE(repeat_late);
  CHECK(repeat_late->duplicate);
  // Cancel.
  auto other = start_one_waiting(a);
  REQUIRE(b.cancel(other));
  REQUIRE(eventually([&] { return has_state(a, other, op_state::canceled); }, 20s));
  CHECK(a.stats().commands_read.load() >= 4);
  CHECK(b.stats().commands_read.load() == 0);
  REQUIRE(eventually([&] { return stored_commands_left(pg.schema()) == "0"; }, 20s));
  a.shutdown();
  b.shutdown();
}

TEST_CASE("commands: retry with an input patch and skip through a process that does not drive "
          "the operation",
          "[actors][pg][lease][repair]") {
  pg_engines pg;
  if (!pg)
    return;
  auto a = launch_waiting(pg.system(), pg.schema().open());
  auto b = launch_waiting(pg.system(), pg.schema().open());
  auto id = start_one_waiting(a);
  REQUIRE(b.pause(id));
  REQUIRE(eventually([&] { return has_state(a, id, op_state::paused); }, 20s));
  // B checks the fields against the stored operation: a step it does not
  // have is B's own refusal, nothing stored.
  retry_options wrong;
  wrong.from_step = "nope";
  auto refused = b.retry(id, wrong);
  REQUIRE_FALSE(refused);
  CHECK(code_of(refused.error()) == errc::invalid_argument);
  // The patch travels in the stored command; A applies it, and the store
  // holds the patched input.
  retry_options fix;
  fix.input_patch = boost::json::object{{"size", "small"}};
  auto retried = b.retry(id, fix);
  REQUIRE(retried);
  CHECK(retried->state == op_state::waiting);
  INFO(pg.schema().admin("SELECT string_agg(type || ':' || COALESCE(extra, ''), ' ') FROM \""
                         + pg.schema().name() + "\".events"));
  INFO(pg.schema().admin("SELECT input FROM \"" + pg.schema().name() + "\".operations"));
  INFO(boost::json::serialize(*a.get(id)->input));
  CHECK(retried->input->at("size") == "small");
  auto fresh = pg.schema().open();
  auto stored = fresh->load(id);
  REQUIRE(stored);
  REQUIRE(*stored);
  CHECK((**stored).input->at("size") == "small");
  // Skip the wait once it is paused again: the operation goes on.
  REQUIRE(b.pause(id));
  REQUIRE(eventually([&] { return has_state(a, id, op_state::paused); }, 20s));
  auto skipped = b.skip(id, "wait", "approved by phone");
  REQUIRE(skipped);
  REQUIRE(eventually([&] { return has_state(a, id, op_state::succeeded); }, 20s));
  CHECK(a.get(id)->steps[0].state == step_state::skipped);
  REQUIRE(eventually([&] { return stored_commands_left(pg.schema()) == "0"; }, 20s));
  a.shutdown();
  b.shutdown();
}

TEST_CASE("commands: a command stored for a process that left is carried out by the one that "
          "takes its operations over",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto raw = pg.schema().open();
  std::string id;
  {
    auto a = launch_waiting(sys, pg.schema().open());
    id = start_one_waiting(a);
    a.shutdown(); // leaves: its operation is an orphan until another claims it
  }
  stored_command cmd;
  cmd.operation_id = id;
  cmd.is_signal = true;
  cmd.signal_name = "go";
  cmd.signal_id = "s-9";
  cmd.payload = boost::json::object{{"n", 9}};
  auto put = raw->commands()->put(cmd);
  REQUIRE(put);
  CHECK(*put > 0);
  auto twice = raw->commands()->put(cmd);
  REQUIRE(twice);
  CHECK(*twice == 0);
  auto b = launch_waiting(sys, pg.schema().open());
  REQUIRE(eventually([&] { return has_state(b, id, op_state::succeeded); }, 20s));
  auto op = b.get(id);
  REQUIRE(op);
  CHECK(op->data.at("go") == boost::json::object{{"n", 9}});
  CHECK(op->signals.size() == 1);
  REQUIRE(eventually([&] { return stored_commands_left(pg.schema()) == "0"; }, 20s));
  b.shutdown();
}

TEST_CASE("commands: the cluster lists every live process with what it drives",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto a = launch_waiting(pg.system(), pg.schema().open());
  auto b = launch_waiting(pg.system(), pg.schema().open());
  start_one_waiting(a);
  auto view = b.cluster();
  REQUIRE(view);
  CHECK(view->self == b.owner());
  REQUIRE(view->servers.size() == 2);
  CHECK(view->servers[0].owner == a.owner()); // oldest first
  CHECK(view->servers[0].operations == 1);
  CHECK(view->servers[1].owner == b.owner());
  CHECK(view->servers[1].operations == 0);
  a.shutdown();
  REQUIRE(eventually([&] { return b.cluster()->servers.size() == 1; }, 20s));
  b.shutdown();
}

TEST_CASE("commands: the store's notification wakes the owner at once, not at its next look",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  // Looks every 20 s on its own: only the notification is that fast.
  auto a = launch_waiting(sys, pg.schema().open(), 60s);
  auto b = launch_waiting(sys, pg.schema().open(), 60s);
  auto id = start_one_waiting(a);
  auto sent_at = std::chrono::steady_clock::now();
  auto canceled = b.cancel(id);
  REQUIRE(canceled);
  // Answered once carried out, well before either process's own look.
  CHECK(std::chrono::steady_clock::now() - sent_at < 10s);
  INFO("answered " << to_string(canceled->state) << " after "
                   << std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - sent_at)
                        .count()
                   << " ms; A has " << to_string(a.get(id)->state));
  CHECK(has_state(a, id, op_state::canceled));
  CHECK(a.stats().notifications.load() >= 1);
  CHECK(a.stats().commands_read.load() >= 1);
  a.shutdown();
  b.shutdown();
}

TEST_CASE("commands: a listening connection cut off is counted, opened again, and what it "
          "missed is read",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto a = launch_waiting(pg.system(), pg.schema().open(), 60s);
  auto b = launch_waiting(pg.system(), pg.schema().open(), 60s);
  auto id = start_one_waiting(a);
  // As a server restart or a network cut would: every listening session
  // ends (other tests' too; theirs connect again as these do).
  auto cut = [&] {
    pg.schema().admin("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                      "WHERE query LIKE 'LISTEN %'");
  };
  cut();
  // Stored while A's listener is down (it waits a second before it
  // connects again): A reads the commands once it is back, long before its
  // own look (20 s). B's listener was cut too: when A's outcome comes
  // before B listens again, B answers at the end of its wait (5 s) with
  // the operation as stored, as documented.
  auto paused = b.pause(id);
  REQUIRE(paused);
  CHECK((paused->state == op_state::paused || paused->state == op_state::waiting));
  CHECK(eventually([&] { return has_state(a, id, op_state::paused); }, 15s));
  CHECK(a.stats().notifications_lost.load() >= 1);
  a.shutdown();
  b.shutdown();
}
