// A child process delivering a sink is killed with SIGKILL at random
// points mid-delivery, several times; a last child finishes. The receiver
// must have every committed event (duplicates allowed: a kill between a
// delivery and its cursor write sends it again), each operation's events
// first arriving in log order, and valid signatures.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
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
  auto p = std::getenv("STEPWISE_OUTBOX_CHILD");
  return p ? p : "";
}

int64_t stored_cursor(store& st) {
  auto recs = dynamic_cast<sink_store&>(st).sink_records();
  REQUIRE(recs);
  return recs->empty() ? 0 : recs->front().cursor;
}

// Runs `cycles` children that are killed once the sink's cursor moved
// (deliveries are under way), then one that finishes everything. Returns
// the committed events.
std::vector<event> kill_and_finish(const std::string& spec) {
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
  for (int i = 0; i < cycles; ++i) {
    auto before = stored_cursor(*st);
    auto pid = spawn({child, uri, spec, "20", "run", acked});
    REQUIRE(pid > 0);
    auto until = std::chrono::steady_clock::now() + 60s;
    while (stored_cursor(*st) == before && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(1ms);
    // A random point of the delivery: before or after a cursor write.
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    ::kill(pid, SIGKILL);
    CHECK(WIFSIGNALED(reap(pid)));
  }
  auto pid = spawn({child, uri, spec, "5", "finish", acked});
  auto status = reap(pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(lines(acked).size() >= 5);
  auto events = st->events_after(0, 10'000'000);
  REQUIRE(events);
  REQUIRE(stored_cursor(*st) == events->back().seq);
  return *events;
}

void check(const std::vector<event>& committed, const std::vector<received>& got) {
  auto c = check_delivery(committed, got);
  INFO("first problem: " << (c.problems.empty() ? "" : c.problems.front()));
  CHECK(c.problems.empty());
  CHECK(c.distinct == committed.size());
  WARN("events: " << committed.size() << ", duplicates after kills: " << c.duplicates);
}

} // namespace

TEST_CASE("no webhook delivery is lost across SIGKILLs", "[outbox][durability]") {
  temp_dir keys;
  auto key = keys.file("key");
  std::ofstream{key} << "crash-key\n";
  webhook_receiver rx{"crash-key"};
  rx.fail_every(5);
  auto committed = kill_and_finish("hook=webhook:" + rx.url() + ",secret-file=" + key);
  check(committed, from_webhook(rx.accepted()));
  CHECK(rx.bad_signatures() == 0);
}

TEST_CASE("no Kafka delivery is lost across SIGKILLs", "[outbox][durability]") {
  kafka_mock mock;
  mock.fail_produce({RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                     RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT});
  auto committed = kill_and_finish("bus=kafka:" + mock.bootstraps() + "/"
                                   + mock.topic());
  check(committed, from_kafka(mock.read_all(committed.size(), 20s)));
}
