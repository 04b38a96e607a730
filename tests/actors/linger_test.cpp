// The commit linger (engine_config::commit_linger): a small commit waits
// for more checkpoints only while many operations are live, so that a lone
// operation never pays it and a burst's tail pays at most a quarter of it.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

namespace {

registry two_steps() {
  return one(workflow("w", 1).step(1, ok("a")).step(2, ok("b")));
}

} // namespace

TEST_CASE("a lone operation never waits for the commit linger", "[actors][linger]") {
  engine_config ec;
  // An hour: were it paid once, the operation would not end within
  // `finish`'s bound of 10 s.
  ec.commit_linger = std::chrono::hours(1);
  harness h{two_steps(), nullptr, ec};
  for (int i = 0; i < 3; ++i) {
    auto op = h.finish(h.start("w", {{"i", i}}));
    CHECK(op.state == op_state::succeeded);
  }
}

TEST_CASE("a burst under a long commit linger still ends", "[actors][linger]") {
  engine_config ec;
  // Two seconds, in quarters of half a second: a round that waits for
  // checkpoints that never come ends after a quarter.
  ec.commit_linger = std::chrono::seconds(2);
  harness h{two_steps(), nullptr, ec};
  std::mutex mtx;
  std::vector<std::string> ids;
  std::atomic<int> answered{0};
  // All at once, as HTTP clients send them: the creates share commits.
  for (int i = 0; i < 100; ++i) {
    start_request req;
    req.workflow = "w";
    req.input = {{"i", i}};
    h.eng.start(req, [&](caf::expected<start_result> r) {
      if (r) {
        std::lock_guard<std::mutex> g{mtx};
        ids.push_back(r->op.id);
      }
      ++answered;
    });
  }
  REQUIRE(h.eventually([&] { return answered.load() == 100; }));
  REQUIRE(ids.size() == 100);
  for (auto& id : ids)
    CHECK(h.finish(id).state == op_state::succeeded);
  INFO("commits: " << h.eng.stats().commits.load());
  CHECK(h.eng.stats().commits.load() < 400); // fewer than the checkpoints
}
