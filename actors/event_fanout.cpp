#include "actors/event_fanout.hpp"

#include <algorithm>

#include <caf/system_messages.hpp>

namespace stepwise {

event_fanout_actor::behavior_type event_fanout(
  event_fanout_actor::stateful_pointer<event_fanout_state> self,
  std::vector<event_listener> subscribers) {
  for (auto& s : subscribers)
    self->monitor(s);
  self->state.subscribers = std::move(subscribers);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& subs = self->state.subscribers;
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const event_listener& a) { return a.address() == dm.source; }),
               subs.end());
  });
  return {
    [=](event_batch& batch) {
      // Copy for all but the last subscriber, which gets the batch itself.
      auto& subs = self->state.subscribers;
      for (size_t i = 0; i + 1 < subs.size(); ++i)
        self->send(subs[i], batch);
      if (!subs.empty())
        self->send(subs.back(), std::move(batch));
    },
    [=](subscribe_atom, event_listener& listener) {
      self->monitor(listener);
      self->state.subscribers.emplace_back(std::move(listener));
    },
  };
}

} // namespace stepwise
