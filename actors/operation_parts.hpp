#pragma once

#include <vector>

#include <caf/message.hpp>
#include <caf/message_handler.hpp>

#include "actors/operation_actor.hpp"

/// The operation actor's own functions, shared by its source files
/// (operation_actor.cpp: start, steps, timers, commits;
/// operation_requests.cpp: commands and signals; operation_waits.cpp:
/// waits and their watchers). Not for other actors.
namespace stepwise::op {

using self_ptr = caf::stateful_actor<operation_state>*;

/// Returns a number in [0, 1) for a policy's jitter.
double unit_random(operation_state& st);

/// Writes the working copy with `events`; `act` runs once it is durable.
void persist(self_ptr self, std::vector<event> events, next_action act);

/// Carries out `act` (its write is durable).
void execute(self_ptr self, next_action act);

/// Delivers `msg` to the actor at `due` on the engine's clock.
void arm(self_ptr self, time_point due, caf::message msg);

/// Gives up the attempt in flight, if any: its late result will be dropped
/// (a new generation), and the step is asked to stop.
void abandon(self_ptr self, const char* why);

/// Runs `fn` now, or after the commit in flight when there is one.
template <class F>
void when_idle(self_ptr self, F fn) {
  if (self->state.committing)
    self->state.deferred.emplace_back(std::move(fn));
  else
    fn();
}

/// Carries out an `await` action: tells the wait's watcher (once per
/// attempt), then passivates or arms the wait's timeout.
void await(self_ptr self, const next_action& act);

/// Client requests: get, commands, signals (operation_requests.cpp).
caf::message_handler operation_requests(self_ptr self);

/// A wait's task described, a watcher's report (operation_waits.cpp).
caf::message_handler operation_waits(self_ptr self);

} // namespace stepwise::op
