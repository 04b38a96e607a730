// The webhook sink in one process: every event arrives, in order per
// operation, signed; batches; filters; a receiver that is down for a while.

#include <fstream>
#include <numeric>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/outbox/fixture.hpp"
#include "tests/outbox/receiver.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

std::string write_secret(const temp_dir& dir, const std::string& secret) {
  auto path = dir.file("secret");
  std::ofstream{path} << secret << "\n";
  return path;
}

void require_complete(const delivery_check& c) {
  INFO("first problems: " << (c.problems.empty() ? "" : c.problems.front()));
  CHECK(c.problems.empty());
}

} // namespace

TEST_CASE("every event reaches the webhook, signed, in order per operation, "
          "though one call in five fails",
          "[outbox][webhook]") {
  temp_dir keys;
  webhook_receiver rx{"hook-key-1"};
  rx.fail_every(5);
  outbox_fixture fx{
    {sink("hook=webhook:" + rx.url() + ",secret-file=" + write_secret(keys, "hook-key-1"))}};
  auto committed = fx.run_and_deliver("hook", 30);
  auto got = check_delivery(committed, from_webhook(rx.accepted()));
  require_complete(got);
  CHECK(got.distinct == committed.size());
  CHECK(rx.bad_signatures() == 0);
  CHECK(rx.calls() > committed.size()); // some failed and were sent again
  auto s = fx.status("hook");
  CHECK(s.held_here);
  CHECK(s.failed > 0);
  CHECK(s.delivered >= committed.size());
  CHECK(s.last_delivery_at.has_value());
  // Every acknowledged event's lag is in the histogram of /metrics.
  CHECK(std::accumulate(s.lag_counts.begin(), s.lag_counts.end(), uint64_t{0}) == s.delivered);
  CHECK(s.lag_counts.size() == s.lag_bounds.size() + 1);
  // The message id of a completion is its request id.
  auto headers = rx.last_headers();
  CHECK(headers.count("X-Stepwise-Message-Id") == 1);
  CHECK(headers.find("X-Stepwise-Sink")->second == "hook");
}

TEST_CASE("a batching webhook gets arrays, and filters pick events", "[outbox][webhook]") {
  webhook_receiver all;
  webhook_receiver some;
  outbox_fixture fx{{sink("all=webhook:" + all.url() + ",batch=50"),
                     sink("some=webhook:" + some.url()
                          + ",events=operation_succeeded|infrastructure_task_completed"
                            ",workflows=task")}};
  fx.finish(fx.start_ops("three", 20));
  fx.finish(fx.start_ops("task", 4));
  REQUIRE(fx.caught_up("all", 20s));
  REQUIRE(fx.caught_up("some", 20s));
  auto committed = fx.committed();
  require_complete(check_delivery(committed, from_webhook(all.accepted())));
  auto id = all.last_headers().find("X-Stepwise-Message-Id")->second;
  CHECK(id.find('-') != std::string::npos); // FIRST-LAST of a batch
  std::vector<event> wanted;
  for (auto& e : committed)
    if (e.type == event_type::operation_succeeded
        || e.type == event_type::infrastructure_task_completed) {
      auto op = fx.eng.get(e.operation_id);
      REQUIRE(op);
      if (op->workflow == "task")
        wanted.push_back(e);
    }
  REQUIRE(wanted.size() == 8);
  require_complete(check_delivery(wanted, from_webhook(some.accepted())));
}

TEST_CASE("operations complete while the webhook is down, another sink "
          "delivers, and the sink catches up afterwards",
          "[outbox][webhook]") {
  webhook_receiver rx;
  webhook_receiver other;
  rx.set_down(true);
  outbox_fixture fx{{sink("hook=webhook:" + rx.url()), sink("other=webhook:" + other.url())}};
  auto ids = fx.start_ops("three", 50);
  // The commit path never waits on a sink: all complete while it is down,
  // and the other sink delivers them.
  fx.finish(ids);
  REQUIRE(fx.caught_up("other", 20s));
  require_complete(check_delivery(fx.committed(), from_webhook(other.accepted())));
  auto s = fx.status("hook");
  CHECK(s.lag > 0);
  CHECK(s.last_error.find("503") != std::string::npos);
  CHECK(rx.accepted().empty());
  REQUIRE(rx.calls() > 0);
  rx.set_down(false);
  REQUIRE(fx.caught_up("hook", 20s));
  require_complete(check_delivery(fx.committed(), from_webhook(rx.accepted())));
  CHECK(fx.status("hook").last_error.empty());
}

TEST_CASE("a webhook that does not answer within timeout-ms is retried", "[outbox][webhook]") {
  webhook_receiver rx;
  rx.hold(true);
  outbox_fixture fx{{sink("hook=webhook:" + rx.url() + ",timeout-ms=100")}};
  fx.finish(fx.start_ops("three", 5));
  REQUIRE(
    eventually([&] { return fx.status("hook").last_error.find("timeout") != std::string::npos; }));
  CHECK(rx.holding() > 0);
  CHECK(rx.accepted().empty());
  rx.hold(false);
  REQUIRE(fx.caught_up("hook", 20s));
  require_complete(check_delivery(fx.committed(), from_webhook(rx.accepted())));
}
