#include <future>
#include <thread>

#include <catch2/catch.hpp>

#include "http/event_hub.hpp"

using namespace stepwise;
using namespace stepwise::http;
using steady = std::chrono::steady_clock;

namespace {

std::vector<event> batch(int64_t from, int64_t to) {
  std::vector<event> out;
  for (auto s = from; s <= to; ++s) {
    event e;
    e.seq = s;
    e.operation_id = "op-" + std::to_string(s);
    out.push_back(e);
  }
  return out;
}

std::vector<int64_t> seqs(const std::vector<event>& es) {
  std::vector<int64_t> out;
  for (auto& e : es)
    out.push_back(e.seq);
  return out;
}

} // namespace

TEST_CASE("the hub serves only what it can prove complete", "[http][hub]") {
  event_hub hub{4};
  CHECK_FALSE(hub.cached_after(0, 10));
  hub.publish(batch(11, 13));
  // Events up to 10 were committed before the first push: unknown here.
  CHECK_FALSE(hub.cached_after(9, 10));
  CHECK(seqs(*hub.cached_after(10, 10)) == std::vector<int64_t>{11, 12, 13});
  CHECK(seqs(*hub.cached_after(11, 1)) == std::vector<int64_t>{12});
  CHECK(hub.cached_after(13, 10)->empty());
  hub.publish(batch(14, 16));
  // Capacity 4: 11 and 12 are gone, so after=11 is no longer provable.
  CHECK_FALSE(hub.cached_after(11, 10));
  CHECK(seqs(*hub.cached_after(12, 10)) == std::vector<int64_t>{13, 14, 15, 16});
  CHECK(hub.last_seq() == 16);
  CHECK(hub.read_counts().first == 4);
}

TEST_CASE("a disabled cache answers nothing", "[http][hub]") {
  event_hub hub{0};
  hub.publish(batch(1, 3));
  CHECK_FALSE(hub.cached_after(0, 10));
  CHECK(hub.last_seq() == 3);
}

TEST_CASE("waiters wake on a publish and on close", "[http][hub]") {
  event_hub hub{16};
  auto t0 = steady::now();
  CHECK_FALSE(hub.wait_beyond(0, t0 + std::chrono::milliseconds(50)));
  CHECK(steady::now() - t0 >= std::chrono::milliseconds(45));
  auto waiter = std::async(std::launch::async, [&] {
    return hub.wait_beyond(0, steady::now() + std::chrono::seconds(30));
  });
  CHECK(waiter.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  hub.publish(batch(1, 1));
  CHECK(waiter.get());
  auto closer = std::async(std::launch::async, [&] {
    return hub.wait_beyond(5, steady::now() + std::chrono::seconds(30));
  });
  hub.close();
  CHECK_FALSE(closer.get());
  CHECK(hub.closed());
}

TEST_CASE("admission is bounded and tickets give their slot back", "[http][hub]") {
  event_hub hub{16};
  auto a = hub.admit(2);
  auto b = hub.admit(2);
  CHECK(a);
  CHECK(b);
  CHECK_FALSE(hub.admit(2));
  CHECK(hub.waiting() == 2);
  a.reset();
  CHECK(hub.waiting() == 1);
  CHECK(hub.admit(2));
  hub.close();
  CHECK_FALSE(hub.admit(5));
}
