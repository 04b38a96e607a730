// Watched tasks survive the death of their process on PostgreSQL: process
// A starts operations that wait on monitored tasks and is killed; process
// B takes them over once A's lease expires, and B's monitor follows the
// tasks to their end and reports each once.
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/durability/child_process.hpp"
#include "tests/durability/wait_run.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

struct poll_line {
  std::string task;
  pid_t pid = 0;
  std::string status;
  int64_t t_us = 0;
};

std::vector<poll_line> parsed(const std::vector<std::string>& lines) {
  std::vector<poll_line> out;
  for (auto& l : lines) {
    std::istringstream in{l};
    poll_line p;
    in >> p.task >> p.pid >> p.status >> p.t_us;
    out.push_back(p);
  }
  return out;
}

} // namespace

TEST_CASE("a takeover hands the dead process's watched tasks to the new owner's monitor",
          "[durability][pg][lease][monitor]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  // Migrate before the children start, so none waits on another's DDL.
  auto check = schema->open();
  wait_run run{schema->uri()};
  const std::string ttl_ms = "1000";
  constexpr int n = 20;
  auto a = run.spawn({ttl_ms});
  REQUIRE(a);
  auto b = run.spawn({ttl_ms});
  REQUIRE(b);
  auto a_pid = a->pid();
  auto b_pid = b->pid();
  std::vector<std::string> ids;
  for (int k = 0; k < n; ++k) {
    auto answer = a->ask("start watched {\"infrastructure_id\":\"w-" + std::to_string(k)
                         + R"(","request_id":"r","deployment_location":{"name":"dc1"}})");
    REQUIRE(answer.rfind("ok ", 0) == 0);
    ids.push_back(answer.substr(3));
  }
  // Every task is A's monitor's: it polled each at least once.
  auto polled_by_a = [&] {
    std::set<std::string> tasks;
    for (auto& p : parsed(run.polls()))
      if (p.pid == a_pid)
        tasks.insert(p.task);
    return tasks.size() == n;
  };
  auto until = std::chrono::steady_clock::now() + 60s;
  while (!polled_by_a() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  REQUIRE(polled_by_a());
  auto killed_at = wall_us();
  auto status = a->kill();
  CHECK(WIFSIGNALED(status));
  // The tasks end while nobody follows them.
  for (int k = 0; k < n; ++k)
    run.touch("done-w-" + std::to_string(k));
  for (auto& id : ids)
    REQUIRE(b->ask("await " + id + " operation_succeeded -") == "seen");
  b->tell("finish");
  status = b->wait();
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  auto events = check->events_after(0, 10'000'000);
  REQUIRE(events);
  CHECK(well_formed(*events));
  for (auto& id : ids) {
    INFO(id);
    auto op = check->load(id);
    REQUIRE(op);
    REQUIRE(op->has_value());
    CHECK((*op)->state == op_state::succeeded);
    CHECK((*op)->data.at("outputs") == boost::json::object{{"by", "monitor"}});
    CHECK(count(*events, id, event_type::infrastructure_task_completed) == 1);
    CHECK(count(*events, id, event_type::step_succeeded, "await") == 1);
    CHECK(count(*events, id, event_type::operation_succeeded) == 1);
  }
  // B's monitor saw every task complete, after A died; A saw none.
  std::map<std::string, int> completions;
  for (auto& p : parsed(run.polls())) {
    if (p.status != "COMPLETE")
      continue;
    CHECK(p.pid == b_pid);
    CHECK(p.t_us > killed_at);
    completions[p.task] += 1;
  }
  CHECK(completions.size() == n);
  auto owners = check->owners();
  REQUIRE(owners);
  CHECK(owners->empty());
}
