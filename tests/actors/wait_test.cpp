// Waits for an operation's end: a timed wait is answered at its time with
// the operation as it is, and leaves nothing behind in the engine.
#include <fstream>
#include <optional>

#include <caf/scoped_actor.hpp>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

// AddressSanitizer keeps freed memory in quarantine, so resident memory
// says nothing of a leak there: its allocator's count of bytes in use does.
#if defined(__SANITIZE_ADDRESS__)
#define STEPWISE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STEPWISE_TEST_ASAN 1
#endif
#endif
#ifdef STEPWISE_TEST_ASAN
#include <sanitizer/allocator_interface.h>
#endif

namespace {

registry waiting_for_go() {
  workflow wf("w", 1);
  return one(std::move(wf).step(1, await_signal("wait", "go")).step(2, ok("after")));
}

/// Memory this process holds, in bytes: resident, or under
/// AddressSanitizer what its allocator has handed out and not got back.
int64_t memory_bytes() {
#ifdef STEPWISE_TEST_ASAN
  return static_cast<int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  std::ifstream statm{"/proc/self/statm"};
  int64_t pages = 0;
  int64_t resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
#endif
}

} // namespace

TEST_CASE("a timed wait answers at its time with the operation as it is", "[actors][wait]") {
  harness h{waiting_for_go()};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
  caf::scoped_actor self{*h.sys};
  auto early = self->request(h.eng.dispatcher(), 10s, wait_atom::value, id, caf::timespan{30s});
  auto late = self->request(h.eng.dispatcher(), 10s, wait_atom::value, id, caf::timespan{1h});
  // Messages of one sender arrive in order: once this is answered, the
  // dispatcher holds both waits, and time may move.
  self->request(h.eng.dispatcher(), 10s, get_atom::value, id)
    .receive([](operation&) {}, [](caf::error& err) { FAIL(message_of(err)); });
  h.clk->advance(30s);
  // The state an answer showed (none: an error).
  auto state_in = [](auto& pending) {
    std::optional<op_state> state;
    pending.receive([&](operation& op) { state = op.state; },
                    [&](caf::error& err) { FAIL("the wait failed: " << message_of(err)); });
    return state;
  };
  CHECK(state_in(early) == op_state::waiting);
  // The operation ends before the other wait's time: answered at its end.
  REQUIRE(h.eng.signal(id, {"go", {}, {}}));
  CHECK(state_in(late) == op_state::succeeded);
}

TEST_CASE("a hundred thousand timed-out waits leave memory flat", "[actors][wait][memory]") {
  harness h{waiting_for_go()};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
  auto poll = [&](int n) {
    for (int i = 0; i < n; ++i) {
      auto op = h.eng.wait(id, 0ms);
      REQUIRE(op);
      REQUIRE(op->state == op_state::waiting);
    }
  };
  poll(10000); // the allocator's pools and the maps at their working size
  auto before = memory_bytes();
  poll(100000);
  auto grown = memory_bytes() - before;
  INFO("memory grew by " << grown << " bytes over 100,000 waits");
  // Each wait left behind (a response promise, the bridge's open request,
  // its reply slot) is some hundreds of bytes: 100,000 of them, tens of MB.
  CHECK(grown < 4 * 1024 * 1024);
}
