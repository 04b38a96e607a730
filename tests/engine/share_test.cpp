#include <limits>

#include <catch2/catch.hpp>

#include "engine/share.hpp"

using namespace stepwise;

namespace {

load_view view(int64_t live, int64_t others, int64_t ended = 0, int64_t unowned = 0) {
  return load_view{live, others, ended, unowned};
}

} // namespace

TEST_CASE("share: a process alone claims every orphan and gives nothing up", "[engine][share]") {
  auto plan = plan_share(view(1, 0, 500, 20), 7);
  CHECK(plan.claim == std::numeric_limits<size_t>::max());
  CHECK(plan.shed == 0);
  CHECK_FALSE(plan.hungry);
}

TEST_CASE("share: a newcomer wants half, the one holding everything gives half up",
          "[engine][share]") {
  auto newcomer = plan_share(view(2, 1000), 0);
  CHECK(newcomer.claim == 500);
  CHECK(newcomer.hungry);
  CHECK(newcomer.shed == 0);
  auto old = plan_share(view(2, 0), 1000);
  CHECK(old.shed == 500);
  CHECK(old.claim == 0);
}

TEST_CASE("share: within the slack nothing moves", "[engine][share]") {
  // Share 334 of 1000 over three; the slack is a tenth of it.
  auto plan = plan_share(view(3, 640), 360);
  CHECK(plan.shed == 0);
  CHECK(plan.claim == 0);
  auto small = plan_share(view(2, 0), 16); // share 8, slack 16
  CHECK(small.shed == 0);
  auto burst = plan_share(view(3, 6), 18); // share 8: 10 over, within 16
  CHECK(burst.shed == 0);
  auto below = plan_share(view(2, 520), 500); // 10 below a share of 510
  CHECK_FALSE(below.hungry);
  CHECK(below.claim == 10);
}

TEST_CASE("share: the orphans of a process that left are taken at once, whatever the counts say",
          "[engine][share]") {
  // A third process left; its 300 are orphans. This one, at its share
  // already by the counts (stale ones, say), still takes its half of them.
  auto plan = plan_share(view(2, 200, 300), 560);
  CHECK(plan.claim == 150);
  // A process below its share claims up to its share.
  auto hungry = plan_share(view(2, 300, 300), 0);
  CHECK(hungry.claim == 300);
  // Above its share, it gives up and claims nothing: the others take the
  // orphans.
  auto above = plan_share(view(3, 0, 90), 600);
  CHECK(above.claim == 0);
  CHECK(above.shed == 600 - 230);
}

TEST_CASE("share: given up operations are taken at once, not by the one that gave them up",
          "[engine][share]") {
  // 100 without owner, given up by this one: it takes none back.
  auto giver = plan_share(view(2, 400, 0, 100), 500, false);
  CHECK(giver.claim == 0);
  CHECK(giver.shed == 0);
  // Another at its share by stale counts still takes its part of them.
  auto other = plan_share(view(3, 900, 0, 100), 500);
  CHECK(other.claim == 34);
  // One below its share takes up to it.
  auto below = plan_share(view(2, 500, 0, 100), 400);
  CHECK(below.claim == 100);
}
