// A schedule firing a hundred times a second (the child's fast clock)
// while its process is killed with SIGKILL at random instants; then two
// processes on one PostgreSQL firing the same schedule, one killed again
// and again. Each fire time starts exactly one operation: none twice,
// none missed, and the schedule counts each once.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "storage/open_store.hpp"
#include "tests/durability/child_process.hpp"
#include "tests/eventually.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

std::string child_path() {
  auto child = env_or_empty("STEPWISE_TEST_CHILD");
  REQUIRE(!child.empty());
  return child;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/stepwise-schedule-crash-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

/// Checks what the store holds of schedule `s` once every process is
/// dead; `processes`: how many fired it (each may have had one fire
/// started and not yet recorded).
void check_exactly_once(store& st, size_t processes) {
  auto sched = st.load_schedule("s");
  REQUIRE(sched);
  REQUIRE(sched->has_value());
  auto& s = **sched;
  // Fire time of every operation, from the schedule_fired events.
  auto events = st.events_after(0, 10'000'000);
  REQUIRE(events);
  std::map<time_point, std::string> by_time;
  std::map<std::string, time_point> by_op;
  for (auto& e : *events) {
    if (e.type != event_type::schedule_fired)
      continue;
    auto t = parse_time(std::string{e.extra.at("fire_time").as_string()});
    REQUIRE(t);
    INFO("fire time " << format_time(*t));
    CHECK(by_time.emplace(*t, e.operation_id).second); // no fire twice
    CHECK(by_op.emplace(e.operation_id, *t).second);
  }
  INFO("fires: " << by_time.size() << ", recorded " << s.fired << ", handled until "
                 << format_time(s.handled_until));
  REQUIRE(by_time.size() > 20);
  // Every operation of the schedule has its event, and the fire's key.
  list_filter f;
  f.schedule = "s";
  f.limit = 1000;
  size_t listed = 0;
  for (;;) {
    auto page = st.list(f);
    REQUIRE(page);
    for (auto& op : page->items) {
      ++listed;
      auto t = by_op.find(op.id);
      REQUIRE(t != by_op.end());
      CHECK(op.idempotency_key == fire_key("s", t->second));
    }
    if (page->next_cursor.empty())
      break;
    f.cursor = page->next_cursor;
  }
  CHECK(listed == by_time.size());
  // None missed: one fire each second from the first after creation.
  auto expect = s.created_at + 1s - (s.created_at.time_since_epoch() % 1s);
  size_t recorded = 0, beyond = 0;
  for (auto& [t, id] : by_time) {
    INFO("operation " << id);
    REQUIRE(format_time(t) == format_time(expect));
    expect += 1s;
    (t <= s.handled_until ? recorded : beyond) += 1;
  }
  // Each handled fire is counted once; a process killed between a fire's
  // start and its record leaves that one fire beyond.
  CHECK(static_cast<int64_t>(recorded) == s.fired);
  CHECK(beyond <= processes);
  CHECK(s.skipped == 0);
}

} // namespace

TEST_CASE("a schedule's fires happen once across SIGKILL at random instants",
          "[durability][schedule]") {
  auto dir = temp_dir();
  auto db = dir + "/ops.db", effects = dir + "/effects", acked = dir + "/acked";
  auto base = std::to_string(wall_us());
  auto runs =
    kill_at_random({child_path(), "schedule", db, effects, acked, base}, acked, crash_cycles(12));
  for (size_t i = 0; i < runs.size(); ++i) {
    INFO("cycle " << i << " status " << runs[i]);
    CHECK(WIFSIGNALED(runs[i]));
  }
  auto st = open_store("sqlite:" + db);
  REQUIRE(st);
  check_exactly_once(**st, 1);
}

TEST_CASE("two processes on PostgreSQL fire a schedule once per fire time",
          "[durability][schedule][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto check = schema->open(); // migrates before the children start
  REQUIRE(check);
  auto dir = temp_dir();
  auto base = std::to_string(wall_us());
  auto start = [&](const std::string& name) {
    return spawn({child_path(), "schedule", schema->uri(), dir + "/effects-" + name,
                  dir + "/acked-" + name, base});
  };
  auto steady = start("steady");
  std::mt19937_64 rng{std::random_device{}()};
  // The other one is killed and started again, at random instants.
  for (int i = 0; i < crash_cycles(6); ++i) {
    auto victim = start("victim-" + std::to_string(i));
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 700));
    ::kill(victim, SIGKILL);
    CHECK(WIFSIGNALED(reap(victim)));
  }
  ::kill(steady, SIGKILL);
  CHECK(WIFSIGNALED(reap(steady)));
  check_exactly_once(*check, 2);
}
