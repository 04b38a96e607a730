// Interleavings of retention the simulation found, forced one by one:
// each broke an invariant before its fix.
#include <catch2/catch.hpp>

#include "tests/simulation/invariants.hpp"
#include "tests/simulation/scenario.hpp"

using namespace stepwise;
using namespace stepwise::sim;
using namespace std::chrono_literals;

namespace {

struct start_answer {
  std::optional<start_result> res;
  std::string error;
};

/// Sends a start with idempotency key `key`; its answer lands in the result.
std::shared_ptr<start_answer> keyed_start(scenario& s, const std::string& key) {
  auto out = std::make_shared<start_answer>();
  start_request req;
  req.workflow = "sim.signal";
  req.idempotency_key = key;
  req.by = "scenario";
  s.world().ask([out, req](bridge_actor::pointer self, const dispatcher_actor& d) {
    self->request(d, caf::infinite, start_atom::value, req)
      .then([out](start_result& r) { out->res = std::move(r); },
            [out](caf::error& err) { out->error = message_of(err); });
  });
  return out;
}

} // namespace

TEST_CASE("a keyed start whose key's operation retention removes before the replay reads it "
          "starts a new operation",
          "[simulation][regression][retention]") {
  scenario s;
  auto first = keyed_start(s, "k");
  s.settle();
  REQUIRE(first->res);
  auto id = first->res->op.id;
  s.command(id, command::cancel);
  s.run_jobs();
  s.settle();
  REQUIRE(s.stored(id));
  REQUIRE(s.stored(id)->state == op_state::canceled);
  // The same start again: its create meets the key, and the replay's read
  // of the key waits at the reader while retention removes the operation.
  auto again = keyed_start(s, "k");
  s.settle_but("sw_loadkey");
  s.world().advance(1s);
  auto purged = s.store->purge({s.world().clock().now(), {}, 10, false, std::nullopt});
  REQUIRE(purged);
  REQUIRE(purged->operations == 1);
  s.settle();
  // Before the fix: store_failure, "the key is taken but its operation
  // was not found".
  CHECK(again->error.empty());
  REQUIRE(again->res);
  CHECK(again->res->created);
  CHECK(again->res->op.id != id);
  CHECK(s.stored(again->res->op.id));
  INFO(s.broken());
  CHECK(!s.log.failed());
}
