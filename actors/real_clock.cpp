#include "actors/real_clock.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/mailbox_element.hpp>

namespace stepwise {

time_point real_clock::now() const {
  return std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
}

void real_clock::schedule(time_point due, const caf::actor& target,
                          caf::message msg) {
  // CAF's clock is steady; translate the wall-clock due time into a delay.
  auto delay = due - now();
  if (delay.count() < 0)
    delay = duration{0};
  auto& clk = sys_.clock();
  clk.schedule_message(clk.now() + delay,
                       caf::actor_cast<caf::strong_actor_ptr>(target),
                       caf::make_mailbox_element(nullptr, caf::make_message_id(),
                                                 {}, std::move(msg)));
}

} // namespace stepwise
