// The schedule keeper: its timer, and what a fire does.
#include "actors/schedule_keeper.hpp"
#include "actors/take.hpp"

#include <utility>

#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/log.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

/// How soon a fire the store or a shutdown refused is tried again.
constexpr auto refire_after = std::chrono::seconds{1};
/// How often, on a store several processes share, the keeper reads the
/// schedules the others wrote.
constexpr auto refresh_every = std::chrono::seconds{5};

void arm(keeper_ptr self) {
  auto& st = self->state;
  auto first = st.due.earliest();
  if (!first || (st.armed && *st.armed <= *first))
    return;
  st.armed = first;
  st.rt->clk->send_at(*first, self, schedule_wake_atom::value, ++st.wake_gen);
}

void look_at(keeper_ptr self, const std::string& id, time_point t) {
  self->state.due.add(id, t);
  arm(self);
}

void on_wake(keeper_ptr self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.wake_gen)
    return; // an earlier timer replaced it
  st.armed.reset();
  for (auto& id : st.due.pop_due(st.rt->clk->now()))
    look(self, id);
  arm(self);
}

/// Writes that `count` fires up to `at` are skipped, and why.
void skip(keeper_ptr self, const std::string& id, time_point at, int64_t count,
          const std::string& reason) {
  auto& st = self->state;
  auto next = st.entries.at(id).s;
  next.handled_until = std::max(next.handled_until, at);
  next.skipped += count;
  event e;
  e.time = st.rt->clk->now();
  e.type = event_type::schedule_skipped;
  e.extra = {
    {"schedule", id}, {"fire_time", format_time(at)}, {"count", count}, {"reason", reason}};
  st.rt->stats.schedule_skips.fetch_add(count, std::memory_order_relaxed);
  write(self, id, std::move(next), {std::move(e)}, nullptr);
}

/// Reads the state of the last fire's operation (overlap policies).
void check_last(keeper_ptr self, schedule_entry& e) {
  auto& st = self->state;
  e.busy = true;
  st.checking[e.s.last_operation] = e.s.id;
  // Answered as a `maybe_op` message (not `request.then`): many checks may
  // be in flight after a restart.
  self->send(st.rt->reader(), load_atom::value, e.s.last_operation);
}

void on_checked(keeper_ptr self, maybe_op& res) {
  auto& st = self->state;
  auto checked = take(st.checking, res.id);
  if (!checked)
    return;
  auto& id = *checked;
  auto i = st.entries.find(id);
  if (i == st.entries.end())
    return;
  auto& e = i->second;
  if (res.err) {
    e.busy = false;
    e.retry_at = st.rt->clk->now() + refire_after;
    settle(self, id);
    return;
  }
  bool ended = !res.value || is_terminal(res.value->state) || e.ended_op == res.id;
  e.last = ended ? schedule_entry::last_op::ended : schedule_entry::last_op::running;
  settle(self, id);
}

bool transient(const caf::error& err) {
  auto code = code_of(err);
  return code == errc::store_failure || code == errc::overloaded || code == errc::shutting_down
         || code == errc::timeout;
}

void on_fire_answer(keeper_ptr self, fire_answer& a) {
  auto& st = self->state;
  auto i = st.entries.find(a.schedule_id);
  if (i == st.entries.end() || i->second.firing != a.fire_time)
    return;
  auto& e = i->second;
  auto trigger = std::move(e.trigger);
  e.trigger.reset();
  e.firing.reset();
  auto now = st.rt->clk->now();
  if (a.err) {
    if (trigger)
      trigger->deliver(a.err);
    if (trigger || transient(a.err)) {
      if (!trigger)
        e.retry_at = now + refire_after;
      e.busy = false;
      settle(self, a.schedule_id);
      return;
    }
    // Refused for good (its workflow is gone, its key taken by another
    // request): the fire is skipped, with the reason.
    write_log(st.rt->cfg.log, log_level::warn,
              "schedule '" + a.schedule_id + "': fire skipped: " + message_of(a.err));
    skip(self, a.schedule_id, a.fire_time, 1, "refused: " + message_of(a.err));
    return;
  }
  auto& started = *a.started;
  if (started.created) {
    auto late = std::chrono::duration<double>(now - a.fire_time).count();
    st.rt->stats.schedule_fire_lateness_seconds.observe(std::max(0.0, late));
  }
  st.rt->stats.schedule_fires.fetch_add(1, std::memory_order_relaxed);
  auto next = e.s;
  next.last_operation = started.op.id;
  next.last_fire = a.fire_time;
  next.fired += 1;
  if (!trigger)
    next.handled_until = std::max(next.handled_until, a.fire_time);
  bool ended = is_terminal(started.op.state) || e.ended_op == started.op.id;
  e.last = ended ? schedule_entry::last_op::ended : schedule_entry::last_op::running;
  if (trigger)
    trigger->deliver(std::move(started));
  write(self, a.schedule_id, std::move(next), {}, nullptr);
}

void on_op_ended(keeper_ptr self, const std::string& schedule_id, const std::string& op_id) {
  auto i = self->state.entries.find(schedule_id);
  if (i == self->state.entries.end())
    return;
  auto& e = i->second;
  e.ended_op = op_id;
  if (e.s.last_operation != op_id)
    return;
  e.last = schedule_entry::last_op::ended;
  if (e.busy)
    return; // looked at when it settles
  if (auto queued = e.queued) {
    e.queued.reset();
    fire(self, schedule_id, *queued);
    return;
  }
  look(self, schedule_id);
}

} // namespace

std::string sealed_owner(const std::string& id) {
  return "schedule:" + id;
}

schedule_view view_of(const schedule_entry& e) {
  schedule_view v;
  v.schedule = e.s;
  mask_sealed(v.schedule.input);
  if (!e.s.paused)
    v.next_fire = next_fire(e.s, e.s.handled_until);
  return v;
}

// One read at a time: what asks meanwhile (a notification, a request)
// waits for one more after it, which may have read before their write.
void read_all(keeper_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (st.reading) {
    st.read_again = true;
    if (then)
      st.after_next_read.push_back(std::move(then));
    return;
  }
  st.reading = true;
  if (then)
    st.after_read.push_back(std::move(then));
  self->send(st.rt->reader(), load_schedules_atom::value);
}

void when_free(keeper_ptr self, const std::string& id, std::function<void(schedule_entry*)> f,
               bool read_since) {
  auto& st = self->state;
  if (!st.loaded) {
    st.before_load.push_back([self, id, f] { when_free(self, id, f); });
    return;
  }
  auto i = st.entries.find(id);
  if (i == st.entries.end() && st.rt->lease && !read_since) {
    read_all(self, [self, id, f] { when_free(self, id, f, true); });
    return;
  }
  if (i == st.entries.end()) {
    f(nullptr);
    return;
  }
  if (i->second.busy) {
    i->second.held.push_back([self, id, f] { when_free(self, id, f, true); });
    return;
  }
  f(&i->second);
}

void settle(keeper_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.entries.find(id);
  if (i == st.entries.end())
    return;
  i->second.busy = false;
  // Its operation may have ended before the write that names it was done.
  if (!i->second.ended_op.empty() && i->second.ended_op == i->second.s.last_operation)
    i->second.last = schedule_entry::last_op::ended;
  auto held = std::move(i->second.held);
  i->second.held.clear();
  for (auto& f : held)
    f(); // each finds the entry again: one may have made it busy
  i = st.entries.find(id);
  if (i == st.entries.end() || i->second.busy)
    return;
  if (i->second.last == schedule_entry::last_op::ended && i->second.queued) {
    auto at = *i->second.queued;
    i->second.queued.reset();
    fire(self, id, at);
    return;
  }
  look(self, id);
}

void look(keeper_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.entries.find(id);
  if (i == st.entries.end()) {
    st.due.remove(id);
    return;
  }
  auto& e = i->second;
  if (e.busy || e.s.revision == 0 || st.stopped)
    return;
  auto now = st.rt->clk->now();
  if (!st.rt->leads()) {
    // On a shared store one process fires for all (a trigger fires
    // anywhere). Looked at again after the next refresh has read the
    // leader's writes, in case this process leads by then.
    look_at(self, id, now + refresh_every);
    return;
  }
  if (e.retry_at && now < *e.retry_at) {
    look_at(self, id, *e.retry_at);
    return;
  }
  e.retry_at.reset();
  auto step = next_step(e.s, now);
  switch (step.what) {
    case fire_step::kind::wait:
      if (step.at && !e.queued)
        look_at(self, id, *step.at);
      else
        st.due.remove(id);
      return;
    case fire_step::kind::skip_missed:
      skip(self, id, *step.at, step.count, "missed");
      return;
    case fire_step::kind::fire:
      break;
  }
  if (e.queued)
    return; // the queued fire goes first
  using last_op = schedule_entry::last_op;
  if (e.s.overlap == overlap_policy::allow || e.s.last_operation.empty()
      || e.last == last_op::ended) {
    fire(self, id, *step.at);
    return;
  }
  if (e.last == last_op::unknown || e.checked_for != step.at) {
    e.checked_for = step.at;
    check_last(self, e);
    return;
  }
  if (e.s.overlap == overlap_policy::skip)
    skip(self, id, *step.at, 1, "overlap");
  else
    e.queued = *step.at; // fired when the last operation ends
}

void fire(keeper_ptr self, const std::string& id, time_point at,
          std::optional<caf::typed_response_promise<start_result>> trigger, const std::string& by) {
  auto& st = self->state;
  auto& e = st.entries.at(id);
  e.busy = true;
  e.firing = at;
  e.trigger = std::move(trigger);
  start_request req;
  req.workflow = e.s.workflow;
  req.version = e.s.version;
  // Opened here, sealed again for the operation by its create.
  auto input = std::make_shared<const boost::json::object>(e.s.input);
  auto opened = open_all(input, st.rt->cfg.secret_keys.get(), sealed_owner(id));
  if (!opened) {
    caf::anon_send(self, fire_answer{id, at, std::nullopt, std::move(opened.error())});
    return;
  }
  req.input = **opened;
  req.idempotency_key = fire_key(id, at);
  req.schedule_id = id;
  req.fire_time = at;
  req.by = by.empty() ? "schedule:" + id : by;
  self->send(st.dispatcher, fire_atom::value, std::move(req));
}

schedule_keeper_actor::behavior_type schedule_keeper(keeper_ptr self, runtime_ptr rt,
                                                     internal_dispatcher_actor dispatcher) {
  self->state.rt = std::move(rt);
  self->state.dispatcher = std::move(dispatcher);
  // Nothing until `launch_runtime` sends the first refresh, once
  // `runtime::schedules` names this actor: the dispatcher answers fires
  // there.
  return {
    // Requests of clients (schedule_keeper_requests.cpp).
    [=](schedule_create_atom, schedule& s, const std::string& by) {
      return on_create(self, s, by);
    },
    [=](schedule_replace_atom, schedule& s, const std::string& by) {
      return on_replace(self, s, by);
    },
    [=](schedule_get_atom, const std::string& id) { return on_get(self, id); },
    [=](schedule_list_atom) { return on_list(self); },
    [=](schedule_delete_atom, const std::string& id, const std::string& by) {
      return on_delete(self, id, by);
    },
    [=](schedule_pause_atom, const std::string& id, bool paused, const std::string& by) {
      return on_pause(self, id, paused, by);
    },
    [=](schedule_trigger_atom, const std::string& id, const std::string& by) {
      return on_trigger(self, id, by);
    },
    // The engine's parts.
    [=](const commit_ack& ack) { on_written(self, ack); },
    [=](fire_answer& a) { on_fire_answer(self, a); },
    [=](op_ended_atom, const std::string& schedule_id, const std::string& op_id) {
      on_op_ended(self, schedule_id, op_id);
    },
    [=](maybe_op& res) { on_checked(self, res); },
    [=](loaded_schedules& res) {
      auto& st = self->state;
      bool full = res.only.empty();
      if (full)
        st.reading = false;
      on_loaded(self, res);
      if (full) {
        auto waiting = std::exchange(st.after_read, {});
        if (std::exchange(st.read_again, false)) {
          auto next = std::exchange(st.after_next_read, {});
          read_all(self);
          st.after_read = std::move(next);
        }
        for (auto& f : waiting)
          f();
      }
      // A store that several processes share: read what the others wrote
      // (their notifications say so at once; this is the safety net).
      if (full && (st.rt->lease || !st.loaded) && !st.refresh_armed) {
        st.refresh_armed = true;
        st.rt->clk->send_at(st.rt->clk->now() + refresh_every, self, schedule_refresh_atom::value);
      }
    },
    [=](schedule_wake_atom, uint64_t gen) { on_wake(self, gen); },
    [=](schedule_refresh_atom) {
      self->state.refresh_armed = false;
      read_all(self);
    },
    [=](schedules_changed_atom) { read_all(self); },
  };
}

} // namespace stepwise
