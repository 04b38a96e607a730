#include "http/shared_event_feed.hpp"

#include <chrono>

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace stepwise::http {

namespace {

/// The store told of a commit's events: (feed_seen_atom, first, last).
using feed_seen_atom = caf::atom_constant<caf::atom("sw_fseen")>;
/// The feed's own timer: read the store whatever was told.
using feed_tick_atom = caf::atom_constant<caf::atom("sw_ftick")>;

using feed_actor =
  caf::typed_actor<caf::reacts_to<event_batch>, caf::reacts_to<feed_seen_atom, int64_t, int64_t>,
                   caf::reacts_to<feed_tick_atom>>;

constexpr auto look_every = std::chrono::seconds(1);
constexpr size_t page = 1000;

struct feed_state {
  engine eng;
  std::shared_ptr<event_hub> hub;
  /// The last event handed to the hub; -1 before the first (the feed
  /// starts where the first batch or notice it hears of begins, not at
  /// the start of the log).
  int64_t last = -1;

  void begin_at(int64_t first) {
    if (last < 0)
      last = first - 1;
  }

  /// Reads the store after `last` until nothing is left; a failed read
  /// waits for the next notice or tick.
  void catch_up() {
    for (;;) {
      hub->count_store_read();
      auto got = eng.events(last, page);
      if (!got || got->empty())
        return;
      hub->publish(*got);
      last = got->back().seq;
      if (got->size() < page)
        return;
    }
  }
};

feed_actor::behavior_type feed(feed_actor::stateful_pointer<feed_state> self, engine eng,
                               std::shared_ptr<event_hub> hub) {
  self->state.eng = std::move(eng);
  self->state.hub = std::move(hub);
  self->delayed_send(self, look_every, feed_tick_atom::value);
  return {
    [self](const event_batch& batch) {
      auto& st = self->state;
      if (batch.events.empty())
        return;
      st.begin_at(batch.events.front().seq);
      if (batch.events.back().seq <= st.last)
        return; // read from the store already
      if (batch.events.front().seq == st.last + 1) {
        st.hub->publish(batch.events);
        st.last = batch.events.back().seq;
        return;
      }
      st.catch_up();
    },
    [self](feed_seen_atom, int64_t first, int64_t last) {
      auto& st = self->state;
      st.begin_at(first);
      if (last > st.last)
        st.catch_up();
    },
    [self](feed_tick_atom) {
      if (self->state.last >= 0)
        self->state.catch_up();
      self->delayed_send(self, look_every, feed_tick_atom::value);
    },
  };
}

} // namespace

event_listener spawn_shared_event_feed(caf::actor_system& sys, engine eng,
                                       std::shared_ptr<event_hub> hub) {
  auto a = sys.spawn<caf::detached>(feed, eng, std::move(hub));
  eng.on_shared_events(
    [a](int64_t first, int64_t last) { caf::anon_send(a, feed_seen_atom::value, first, last); });
  return caf::actor_cast<event_listener>(a);
}

} // namespace stepwise::http
