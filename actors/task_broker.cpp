// The task broker's behavior (see task_broker.hpp): watches begin and end
// tasks, workers poll, beat and answer, and timeouts end attempts.
#include "actors/task_broker.hpp"
#include "actors/task_description.hpp"
#include "actors/task_token.hpp"

#include "engine/errc.hpp"

#include <limits>

#include <caf/send.hpp>

namespace stepwise {

namespace {

caf::error stale_answer(const std::string& why) {
  return make_error(errc::stale_task, why);
}

/// Finds the task `token` names and is held by it. A token of this
/// attempt that the broker has not handed out (it was, before a restart)
/// takes the task: the worker goes on with it.
caf::expected<held_task*> holder_of(task_broker_ptr self, const std::string& token) {
  auto& st = self->state;
  auto parts = parse_task_token(token);
  if (!parts)
    return make_error(errc::invalid_argument,
                      "malformed task token '" + token
                        + "': expected <operation id>.<attempt>.<nonce> as a poll returned it");
  auto i = st.tasks.find(parts->id);
  if (i == st.tasks.end() || i->second.req.attempt != parts->attempt
      || !names_attempt(*parts, i->second.req.since, i->second.req.step, i->second.req.run)) {
    st.rt->stats.tasks_stale_answers.fetch_add(1, std::memory_order_relaxed);
    return stale_answer("attempt " + std::to_string(parts->attempt) + " of operation " + parts->id
                        + " is no longer waiting for a worker: it ended, timed out or was retried");
  }
  auto& t = i->second;
  if (t.report) {
    st.rt->stats.tasks_stale_answers.fetch_add(1, std::memory_order_relaxed);
    return stale_answer("attempt " + std::to_string(parts->attempt) + " of operation " + parts->id
                        + " has ended: it was answered or timed out");
  }
  if (t.nonce.empty()) {
    unready(self, t);
    t.nonce = parts->nonce;
    t.worker = "(from before a restart)";
    st.rt->stats.tasks_taken.fetch_add(1, std::memory_order_relaxed);
  } else if (t.nonce != parts->nonce) {
    st.rt->stats.tasks_stale_answers.fetch_add(1, std::memory_order_relaxed);
    return stale_answer("attempt " + std::to_string(parts->attempt) + " of operation " + parts->id
                        + " was handed to another worker");
  }
  return &t;
}

void task_watched(task_broker_ptr self, watch_request& req) {
  auto& st = self->state;
  if (of_ended_lease(self, req))
    return; // from an operation actor whose stop is on its way
  auto id = req.operation_id;
  if (auto i = st.tasks.find(id); i != st.tasks.end()) {
    auto& t = i->second;
    if (t.req.attempt == req.attempt && t.req.step == req.step
        && attempt_mark(t.req.since, t.req.step, t.req.run)
             == attempt_mark(req.since, req.step, req.run)) {
      // Told again (a new actor for the operation, its attempt read back
      // from the store at its grain): where it stands stays. An attempt of
      // the same number that began at another time is of a later run.
      t.req.reply_to = req.reply_to;
      t.req.lease_epoch = req.lease_epoch;
      t.canceled = false;
      if (t.report) { // the operation did not get it: it waits still
        t.report->lease_epoch = req.lease_epoch;
        caf::anon_send(t.req.reply_to, watch_done_atom::value, *t.report);
      }
      return;
    }
    drop_task(self, id);
  }
  if (auto d = st.details.find(id); d != st.details.end() && d->second.first != req.step)
    st.details.erase(d);
  auto& t = st.tasks.emplace(id, make_held(self, std::move(req))).first->second;
  auto queue = t.queue;
  make_ready(self, t);
  serve_polls(self, queue);
}

/// A compensation's attempt: ready now, ended by its call.
void task_offered(task_broker_ptr self, task_offer& offer) {
  auto& st = self->state;
  auto& ctx = offer.call.context();
  // One compensation runs at a time: a later one replaces it.
  auto key = ctx.operation_id() + "~compensation";
  drop_task(self, key);
  watch_request req;
  req.operation_id = ctx.operation_id();
  req.step = offer.step;
  req.attempt = ctx.attempt();
  req.since = st.rt->clk->now();
  req.lease_epoch = st.rt->lease ? st.rt->lease->epoch() : 0;
  req.task = describe_task(offer.spec, offer.workflow, ctx.input(), ctx.data());
  auto t = make_held(self, std::move(req));
  t.key = key;
  t.call = std::move(offer.call);
  auto& held = st.tasks.emplace(key, std::move(t)).first->second;
  auto queue = held.queue;
  make_ready(self, held);
  serve_polls(self, queue);
}

void task_unwatched(task_broker_ptr self, const std::string& id, int32_t attempt) {
  auto& st = self->state;
  auto i = st.tasks.find(id);
  if (i == st.tasks.end() || i->second.req.attempt > attempt)
    return;
  auto& t = i->second;
  if (t.nonce.empty() || t.report) {
    drop_task(self, id);
    return;
  }
  // A worker holds it: its next heartbeat learns that it may stop.
  t.canceled = true;
  t.drop_at = st.rt->clk->now() + t.heartbeat_timeout.value_or(std::chrono::minutes(1));
  wake_at(self, t.drop_at, id);
}

caf::result<std::vector<task_lease>> task_polled(task_broker_ptr self, task_poll& p) {
  auto& st = self->state;
  if (p.queue.empty())
    return make_error(errc::invalid_argument, "queue: must name the queue to poll");
  if (p.max < 1 || p.max > 100)
    return make_error(errc::invalid_argument, "max: must be from 1 to 100");
  if (p.wait < duration{0} || p.wait > std::chrono::minutes(5))
    return make_error(errc::invalid_argument, "wait: must be from 0s to 5m");
  auto now = st.rt->clk->now();
  st.workers[p.queue][p.worker] = now;
  auto got = take_tasks(self, p.queue, p.max, p.worker);
  if (!got.empty() || p.wait <= duration{0})
    return got;
  auto id = st.next_poll++;
  auto rp = self->make_response_promise<std::vector<task_lease>>();
  auto due = now + p.wait;
  st.poll_queues.emplace(id, p.queue);
  st.polls[p.queue].push_back(waiting_poll{id, std::move(p), rp});
  st.rt->stats.task_pollers.fetch_add(1, std::memory_order_relaxed);
  wake_at(self, due, "#" + std::to_string(id));
  return rp;
}

caf::result<task_beat_result> task_beaten(task_broker_ptr self, task_beat& beat) {
  auto& st = self->state;
  auto t = holder_of(self, beat.token);
  if (!t)
    return std::move(t.error());
  auto& task = **t;
  if (task.canceled)
    return task_beat_result{true};
  if (!beat.details.empty())
    st.details[task.req.operation_id] = {task.req.step, std::move(beat.details)};
  if (task.heartbeat_timeout) {
    task.beat_due = st.rt->clk->now() + *task.heartbeat_timeout;
    wake_at(self, *task.beat_due, task.key);
  }
  st.workers[task.queue][task.worker] = st.rt->clk->now();
  return task_beat_result{false};
}

caf::result<bool> task_answered(task_broker_ptr self, task_answer& a) {
  auto& st = self->state;
  auto t = holder_of(self, a.token);
  if (!t)
    return std::move(t.error());
  auto& task = **t;
  if (task.canceled) {
    st.rt->stats.tasks_stale_answers.fetch_add(1, std::memory_order_relaxed);
    return stale_answer("operation " + task.req.operation_id + " no longer waits for attempt "
                        + std::to_string(task.req.attempt)
                        + ": it was canceled or paused, or the step timed out");
  }
  st.rt->stats.tasks_answered.fetch_add(1, std::memory_order_relaxed);
  auto id = task.key;
  if (a.what == task_answer::kind::complete) {
    end_task(self, id, done(), std::move(a.data));
  } else {
    auto why = a.error.empty() ? std::string{"the worker failed the task"} : a.error;
    end_task(self, id,
             a.non_retryable ? fail(std::move(why))
                             : retry_after(a.retry_after.value_or(duration{0}), std::move(why)),
             {});
  }
  return true;
}

/// Ends what is due at `now`: polls that waited long enough, tasks no
/// worker took in time or whose worker went silent, canceled tasks kept
/// for their worker's heartbeats.
void task_due(task_broker_ptr self, const std::string& what, time_point now) {
  auto& st = self->state;
  if (!what.empty() && what[0] == '#') {
    auto id = std::stoull(what.substr(1));
    auto q = st.poll_queues.find(id);
    if (q == st.poll_queues.end())
      return;
    auto& polls = st.polls[q->second];
    for (auto p = polls.begin(); p != polls.end(); ++p)
      if (p->id == id) {
        // Counted out before the answer goes: whoever gets it sees the gauge.
        st.rt->stats.task_pollers.fetch_sub(1, std::memory_order_relaxed);
        p->promise.deliver(std::vector<task_lease>{});
        polls.erase(p);
        break;
      }
    if (polls.empty())
      st.polls.erase(q->second);
    st.poll_queues.erase(q);
    return;
  }
  auto i = st.tasks.find(what);
  if (i == st.tasks.end())
    return;
  auto& t = i->second;
  auto ms = [](duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  if (t.report) {
    if (t.resend_at <= now)
      resend_report(self, t);
  } else if (t.canceled) {
    if (t.drop_at <= now)
      drop_task(self, what);
  } else if (t.nonce.empty() && t.start_timeout && t.req.since + *t.start_timeout <= now) {
    st.rt->stats.tasks_timed_out.fetch_add(1, std::memory_order_relaxed);
    end_task(self, what,
             retry_after(duration{0}, "no worker took the task on queue '" + t.queue + "' within "
                                        + ms(*t.start_timeout) + " ms"),
             {});
  } else if (!t.nonce.empty() && t.beat_due && *t.beat_due <= now) {
    st.rt->stats.tasks_timed_out.fetch_add(1, std::memory_order_relaxed);
    end_task(self, what,
             retry_after(duration{0}, "worker '" + t.worker + "' sent no heartbeat within "
                                        + ms(*t.heartbeat_timeout) + " ms"),
             {});
  }
}

void broker_tick(task_broker_ptr self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.timer_gen)
    return;
  st.armed.reset();
  auto now = st.rt->clk->now();
  while (!st.due.empty() && st.due.begin()->first <= now) {
    auto what = std::move(st.due.begin()->second);
    st.due.erase(st.due.begin());
    task_due(self, what, now);
  }
  if (!st.due.empty()) {
    st.armed = st.due.begin()->first;
    st.rt->clk->send_at(*st.armed, self, task_tick_atom::value, ++st.timer_gen);
  }
}

std::vector<task_queue_view> queue_views(task_broker_ptr self) {
  auto& st = self->state;
  std::map<std::string, task_queue_view> out;
  auto now = st.rt->clk->now();
  for (auto& [name, ready] : st.ready) {
    auto& v = out[name];
    v.ready = ready.size();
    if (!ready.empty())
      v.oldest_ready = std::get<0>(*ready.begin());
  }
  for (auto& [id, t] : st.tasks)
    if (!t.nonce.empty() && !t.report)
      ++out[t.queue].taken;
  for (auto& [name, polls] : st.polls)
    out[name].pollers = polls.size();
  for (auto w = st.workers.begin(); w != st.workers.end();) {
    for (auto i = w->second.begin(); i != w->second.end();)
      i = now - i->second > std::chrono::minutes(10) ? w->second.erase(i) : std::next(i);
    for (auto& [name, seen] : w->second)
      out[w->first].workers.push_back({name, seen});
    w = w->second.empty() && !out.count(w->first) ? st.workers.erase(w) : std::next(w);
  }
  std::vector<task_queue_view> list;
  for (auto& [name, v] : out) {
    v.name = name;
    list.push_back(std::move(v));
  }
  return list;
}

} // namespace

task_broker_actor::behavior_type task_broker(task_broker_ptr self, runtime_ptr rt) {
  self->state.rt = std::move(rt);
  return {
    [=](watch_atom, watch_request& req) { task_watched(self, req); },
    [=](unwatch_atom, const std::string& id, int32_t attempt) {
      task_unwatched(self, id, attempt);
    },
    [=](task_poll_atom, task_poll& p) { return task_polled(self, p); },
    [=](task_beat_atom, task_beat& b) { return task_beaten(self, b); },
    [=](task_answer_atom, task_answer& a) { return task_answered(self, a); },
    [=](task_queues_atom) { return queue_views(self); },
    [=](task_tick_atom, uint64_t gen) { broker_tick(self, gen); },
    [=](task_offer_atom, task_offer& offer) { task_offered(self, offer); },
    [=](lease_lost_atom) {
      // Another process drives every operation now: a task held stays
      // only so that its worker learns to stop.
      std::vector<std::string> ids;
      for (auto& kv : self->state.tasks)
        ids.push_back(kv.first);
      for (auto& id : ids)
        task_unwatched(self, id, std::numeric_limits<int32_t>::max());
    },
  };
}

} // namespace stepwise
