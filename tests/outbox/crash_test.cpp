// A child process delivering a sink is killed with SIGKILL at random
// points mid-delivery, several times; a last child finishes. The receiver
// must have every committed event, each operation's events first arriving
// in log order, with valid signatures; an event arrives twice only when a
// kill fell between its delivery and the cursor's write (the next process
// begins right after the stored cursor).

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "tests/durability/child_process.hpp"
#include "tests/outbox/kafka_mock.hpp"
#include "tests/outbox/receiver.hpp"
#include "tests/outbox/support.hpp"
#include "tests/storage/store_backends.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

constexpr int cycles = 5;

std::string child_path() {
  auto p = std::getenv("STEPWISE_TEST_CHILD");
  return p ? p : "";
}

int64_t stored_cursor(store& st) {
  auto recs = dynamic_cast<sink_store&>(st).sink_records();
  REQUIRE(recs);
  return recs->empty() ? 0 : recs->front().cursor;
}

struct crash_run {
  std::vector<event> committed;
  /// The sink's stored cursor after each kill.
  std::vector<int64_t> cursors;
};

// Runs `cycles` children that are killed once the sink's cursor moved
// (deliveries are under way), then one that finishes everything.
crash_run kill_and_finish(const std::string& spec) {
  auto child = child_path();
  REQUIRE(!child.empty());
  temp_dir dir;
  auto uri = "sqlite:" + dir.file("ops.db");
  auto acked = dir.file("acked");
  auto opened = open_store(uri);
  REQUIRE(opened);
  auto st = *opened;
  std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> kill_after_ms{0, 25};
  crash_run out;
  for (int i = 0; i < cycles; ++i) {
    auto before = stored_cursor(*st);
    auto pid = spawn({child, "outbox", uri, spec, "20", "run", acked});
    REQUIRE(pid > 0);
    auto until = std::chrono::steady_clock::now() + 60s;
    while (stored_cursor(*st) == before && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(1ms);
    // A random point of the delivery: before or after a cursor write.
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    ::kill(pid, SIGKILL);
    CHECK(WIFSIGNALED(reap(pid)));
    out.cursors.push_back(stored_cursor(*st));
  }
  auto pid = spawn({child, "outbox", uri, spec, "5", "finish", acked});
  auto status = reap(pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(lines(acked).size() >= 5);
  auto events = st->events_after(0, 10'000'000);
  REQUIRE(events);
  REQUIRE(stored_cursor(*st) == events->back().seq);
  out.committed = std::move(*events);
  return out;
}

void require_none(const std::vector<std::string>& problems) {
  INFO("first problem: " << (problems.empty() ? "" : problems.front()));
  CHECK(problems.empty());
}

// Every event arrived, each operation's first in log order; what came
// twice came again only from a stored cursor on.
void check(const crash_run& run, const std::vector<std::vector<received>>& streams) {
  std::vector<received> all;
  for (auto& s : streams) {
    all.insert(all.end(), s.begin(), s.end());
    require_none(check_restarts(run.committed, s, run.cursors));
  }
  auto c = check_delivery(run.committed, all);
  require_none(c.problems);
  CHECK(c.distinct == run.committed.size());
  WARN("events: " << run.committed.size() << ", duplicates after kills: " << c.duplicates);
}

} // namespace

TEST_CASE("no webhook delivery is lost across SIGKILLs", "[outbox][durability]") {
  temp_dir keys;
  auto key = keys.file("key");
  std::ofstream{key} << "crash-key\n";
  webhook_receiver rx{"crash-key"};
  rx.fail_every(5);
  auto run = kill_and_finish("hook=webhook:" + rx.url() + ",secret-file=" + key);
  check(run, {from_webhook(rx.accepted())});
  CHECK(rx.bad_signatures() == 0);
}

TEST_CASE("no Kafka delivery is lost across SIGKILLs", "[outbox][durability]") {
  kafka_mock mock;
  mock.fail_produce(
    {RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT});
  auto run = kill_and_finish("bus=kafka:" + mock.bootstraps() + "/" + mock.topic());
  // Each partition is one stream in offset order.
  std::map<int32_t, std::vector<kafka_record>> partitions;
  for (auto& r : mock.read_all(run.committed.size(), 20s))
    partitions[r.partition].push_back(r);
  std::vector<std::vector<received>> streams;
  for (auto& [p, records] : partitions)
    streams.push_back(from_kafka(records));
  check(run, streams);
}
