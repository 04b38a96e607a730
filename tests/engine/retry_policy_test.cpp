// engine/retry_policy and engine/outcome: outcomes, backoff, jitter, bounds.
#include <catch2/catch.hpp>

#include "engine/outcome.hpp"
#include "engine/retry_policy.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::t0;

TEST_CASE("outcomes are exactly one of done, retry, fail", "[engine]") {
  CHECK(done().what == outcome::kind::done);
  auto r = retry_after(5s, "busy");
  CHECK(r.what == outcome::kind::retry);
  CHECK(r.delay == 5s);
  CHECK(r.message == "busy");
  auto f = fail("bad");
  CHECK(f.what == outcome::kind::fail);
  CHECK(f.message == "bad");
}

TEST_CASE("backoff grows by the multiplier and stops at the maximum", "[engine]") {
  retry_policy p;
  p.initial_interval = 1s;
  p.multiplier = 2.0;
  p.max_interval = 10s;
  CHECK(p.backoff(1, 0.5) == 1s);
  CHECK(p.backoff(2, 0.5) == 2s);
  CHECK(p.backoff(4, 0.5) == 8s);
  CHECK(p.backoff(5, 0.5) == 10s);
  CHECK(p.backoff(50, 0.5) == 10s);
}

TEST_CASE("jitter stays within its bounds", "[engine]") {
  retry_policy p;
  p.initial_interval = 1s;
  p.jitter = 0.2;
  CHECK(p.backoff(1, 0.0) == 800ms);
  CHECK(p.backoff(1, 0.999999) <= 1200ms);
  CHECK(p.backoff(1, 0.999999) > 1199ms);
  for (double u = 0; u < 1; u += 0.01) {
    auto d = p.backoff(1, u);
    CHECK(d >= 800ms);
    CHECK(d <= 1200ms);
  }
}

TEST_CASE("max attempts and max elapsed bound retries from the first attempt", "[engine]") {
  retry_policy p;
  p.max_attempts = 3;
  CHECK(p.allows(2, t0, t0 + 1h));
  CHECK(!p.allows(3, t0, t0 + 1s));
  retry_policy q;
  q.max_elapsed = 10s;
  CHECK(q.allows(100, t0, t0 + 10s));
  CHECK(!q.allows(1, t0, t0 + 11s));
}
