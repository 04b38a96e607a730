// The pipeline between the store and a destination: filtering, batches,
// acknowledgements out of order, failures and where the cursor may go.

#include <catch2/catch.hpp>

#include "outbox/pipeline.hpp"

using namespace stepwise;
using namespace stepwise::outbox;

namespace {

std::vector<routed_event> events(int64_t from, int64_t to, const std::string& wf = "w") {
  std::vector<routed_event> out;
  for (auto seq = from; seq <= to; ++seq) {
    routed_event r;
    r.ev.seq = seq;
    r.ev.operation_id = "op" + std::to_string(seq % 3);
    r.workflow = wf;
    out.push_back(r);
  }
  return out;
}

/// A pipeline from the start of the log with events 1 to `n` read.
pipeline read_up_to(int64_t n) {
  pipeline p{{}};
  p.reset(0);
  auto read = events(1, n);
  p.add(read);
  return p;
}

std::vector<int64_t> seqs_of(const outgoing& batch) {
  std::vector<int64_t> out;
  for (auto& e : *batch.events)
    out.push_back(e.seq);
  return out;
}

} // namespace

TEST_CASE("the cursor follows the oldest unacknowledged event", "[outbox][pipeline]") {
  pipeline p{{}};
  p.reset(10);
  CHECK(p.confirmed() == 10);
  auto read = events(11, 20);
  p.add(read);
  CHECK(p.read_pos() == 20);
  CHECK(p.waiting() == 10);
  auto b1 = p.take(4);
  auto b2 = p.take(4);
  auto b3 = p.take(4);
  REQUIRE(b1);
  REQUIRE(b2);
  REQUIRE(b3);
  CHECK(b3->events->size() == 2);
  CHECK_FALSE(p.take(4));
  CHECK(p.in_flight() == 3);
  CHECK(p.confirmed() == 10);
  REQUIRE(p.acked(b2->id));
  CHECK(p.confirmed() == 10); // b1 still out
  REQUIRE(p.acked(b1->id));
  CHECK(p.confirmed() == 18);
  CHECK_FALSE(p.acked(b1->id)); // twice: ignored
  REQUIRE(p.acked(b3->id));
  CHECK(p.confirmed() == 20);
  CHECK(p.idle());
  // Reading the same events again (a poll raced a wake-up) adds nothing.
  auto again = events(15, 20);
  p.add(again);
  CHECK(p.waiting() == 0);
}

TEST_CASE("from the oldest failed batch on, batches go out again first, in log order",
          "[outbox][pipeline]") {
  auto p = read_up_to(9);
  auto b1 = p.take(3);
  auto b2 = p.take(3);
  auto b3 = p.take(3);
  p.failed(b1->id);
  REQUIRE(p.acked(b2->id));
  p.failed(b3->id);
  CHECK(p.confirmed() == 0);
  CHECK(p.in_flight() == 0);
  p.requeue();
  // The acknowledged b2 goes again too: its events arrived before b1's
  // retry, and their last arrival must come after it.
  CHECK(p.waiting() == 9);
  CHECK(p.confirmed() == 0);
  auto r = p.take(10);
  REQUIRE(r);
  CHECK(seqs_of(*r) == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  REQUIRE(p.acked(r->id));
  CHECK(p.confirmed() == 9);
}

TEST_CASE("acknowledged batches before the oldest failed one stay delivered",
          "[outbox][pipeline]") {
  auto p = read_up_to(6);
  auto b1 = p.take(3);
  auto b2 = p.take(3);
  REQUIRE(p.acked(b1->id));
  p.failed(b2->id);
  p.requeue();
  CHECK(p.confirmed() == 3);
  auto r = p.take(10);
  REQUIRE(r);
  CHECK(seqs_of(*r) == std::vector<int64_t>{4, 5, 6});
}

TEST_CASE("filtered-out events count as delivered", "[outbox][pipeline]") {
  sink_filter f;
  f.workflows = {"keep"};
  pipeline p{f};
  p.reset(0);
  auto drop = events(1, 5, "other");
  p.add(drop);
  CHECK(p.waiting() == 0);
  CHECK(p.confirmed() == 5);
  auto keep = events(6, 6, "keep");
  p.add(keep);
  CHECK(p.confirmed() == 5);
  auto b = p.take(10);
  REQUIRE(p.acked(b->id));
  CHECK(p.confirmed() == 6);
}
