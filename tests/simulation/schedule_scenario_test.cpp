// Interleavings of schedules the simulation found, forced one by one: each
// broke an invariant before its fix.
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/schedule_requests.hpp"
#include "tests/simulation/scenario.hpp"

using namespace stepwise;
using namespace stepwise::sim;
using namespace std::chrono_literals;

namespace {

/// Sends `msg` to the schedule keeper and settles; returns its answer.
template <class Answer, class... Ts>
caf::expected<Answer> ask_keeper(scenario& s, Ts... xs) {
  std::optional<caf::expected<Answer>> out;
  s.world().ask(
    [k = s.world().keeper(), &out, xs...](bridge_actor::pointer self, const dispatcher_actor&) {
      self->request(k, caf::infinite, xs...)
        .then([&out](Answer& a) { out = std::move(a); },
              [&out](caf::error& err) { out = caf::expected<Answer>{std::move(err)}; });
    });
  s.settle();
  REQUIRE(out);
  return std::move(*out);
}

} // namespace

TEST_CASE("two triggers of one schedule in one millisecond start two operations",
          "[simulation][regression][schedules]") {
  scenario s;
  auto hourly = periodic_steps("hourly", 1h);
  std::string by = "scenario";
  REQUIRE(ask_keeper<schedule_result>(s, schedule_create_atom::value, hourly, by));
  auto first = ask_keeper<start_result>(s, schedule_trigger_atom::value, hourly.id, by);
  REQUIRE(first);
  // A new definition between them: the same key would be "used with a
  // different request". The engine's time has not moved.
  hourly.input = {{"n", 2}};
  REQUIRE(ask_keeper<schedule_view>(s, schedule_replace_atom::value, hourly, by));
  auto second = ask_keeper<start_result>(s, schedule_trigger_atom::value, hourly.id, by);
  INFO((second ? std::string{} : message_of(second.error())));
  REQUIRE(second);
  CHECK(second->op.id != first->op.id);
  CHECK(second->op.idempotency_key != first->op.idempotency_key);
  INFO(s.broken());
  CHECK(!s.log.failed());
}
