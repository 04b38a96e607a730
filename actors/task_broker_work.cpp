// The task broker's queue work: handing tasks out, ending their attempts,
// and its one timer (see task_broker.hpp).
#include <caf/send.hpp>

#include "actors/task_broker.hpp"
#include "actors/task_token.hpp"
#include <cstdio>

namespace stepwise {

namespace {

void count_ready(task_broker_ptr self, int64_t n) {
  self->state.rt->stats.tasks_ready.fetch_add(n, std::memory_order_relaxed);
}

void count_taken(task_broker_ptr self, int64_t n) {
  self->state.rt->stats.tasks_taken.fetch_add(n, std::memory_order_relaxed);
}

std::optional<time_point> epoch_ms(const boost::json::object& task, const char* key) {
  if (auto* v = task.if_contains(key); v && v->is_int64())
    return time_point{std::chrono::milliseconds{v->as_int64()}};
  return std::nullopt;
}

/// Takes ready task `id` for `worker` and returns its lease.
task_lease hand_out(task_broker_ptr self, held_task& t, const std::string& worker) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  char nonce[17];
  std::snprintf(nonce, sizeof nonce, "%016llx", static_cast<unsigned long long>(st.rng()));
  t.nonce = attempt_mark(t.req.since, t.req.step, t.req.run) + nonce;
  t.worker = worker;
  if (t.heartbeat_timeout) {
    t.beat_due = now + *t.heartbeat_timeout;
    wake_at(self, *t.beat_due, t.key);
  }
  count_ready(self, -1);
  count_taken(self, 1);
  st.rt->stats.tasks_handed.fetch_add(1, std::memory_order_relaxed);
  st.rt->stats.task_wait_seconds.observe(std::chrono::duration<double>(now - t.ready_at).count());
  auto& task = t.req.task;
  task_lease out;
  out.token = to_string(task_token{t.key, t.req.attempt, t.nonce});
  out.operation_id = t.req.operation_id;
  out.step = t.req.step;
  out.attempt = t.req.attempt;
  if (auto* w = task.if_contains("workflow"); w && w->is_string())
    out.workflow = std::string(w->as_string());
  if (auto* in = task.if_contains("input"); in && in->is_object())
    out.input = in->as_object();
  if (auto* d = task.if_contains("data"); d && d->is_object())
    out.data = d->as_object();
  out.deadline = t.deadline;
  out.heartbeat_timeout = t.heartbeat_timeout;
  out.ready_at = t.ready_at;
  if (auto i = st.details.find(t.req.operation_id);
      i != st.details.end() && i->second.first == t.req.step)
    out.details = i->second.second;
  return out;
}

/// Takes `t` out of its queue's counts (ready or taken) as it ends; an
/// ended one is in neither.
void leave_queue(task_broker_ptr self, held_task& t) {
  if (t.report)
    return;
  if (t.nonce.empty())
    unready(self, t);
  else
    count_taken(self, -1);
}

} // namespace

bool of_ended_lease(task_broker_ptr self, const watch_request& req) {
  auto& lease = self->state.rt->lease;
  return lease && req.lease_epoch != lease->epoch();
}

held_task make_held(task_broker_ptr self, watch_request req) {
  held_task t;
  auto& task = req.task;
  if (auto* q = task.if_contains("queue"); q && q->is_string())
    t.queue = std::string(q->as_string());
  auto ms = [&](const char* key) -> std::optional<duration> {
    if (auto* v = task.if_contains(key); v && v->is_int64())
      return std::chrono::milliseconds{v->as_int64()};
    return std::nullopt;
  };
  t.start_timeout = ms("start_timeout_ms");
  t.heartbeat_timeout = ms("heartbeat_timeout_ms");
  t.deadline = epoch_ms(task, "deadline_ms");
  t.seq = self->state.next_seq++;
  t.key = req.operation_id;
  t.req = std::move(req);
  return t;
}

void make_ready(task_broker_ptr self, held_task& t) {
  auto& st = self->state;
  st.ready[t.queue].emplace(t.req.since, t.seq, t.key);
  t.ready_at = st.rt->clk->now();
  count_ready(self, 1);
  if (t.start_timeout)
    wake_at(self, t.req.since + *t.start_timeout, t.key);
}

std::vector<task_lease> take_tasks(task_broker_ptr self, const std::string& queue, size_t max,
                                   const std::string& worker) {
  auto& st = self->state;
  std::vector<task_lease> out;
  // As with a step: none begins once another process may have taken the
  // operations over (the polls wait; a lost lease drops the tasks).
  if (st.rt->lease && !st.rt->lease->holds())
    return out;
  auto q = st.ready.find(queue);
  while (q != st.ready.end() && !q->second.empty() && out.size() < max) {
    auto id = std::get<2>(*q->second.begin());
    auto& t = st.tasks.at(id);
    if (of_ended_lease(self, t.req)) {
      // Asked before this process rejoined: its lease_lost drop may come
      // after this poll, and another process drives the operation now.
      drop_task(self, id);
      q = st.ready.find(queue); // the drop may have removed the queue
      continue;
    }
    q->second.erase(q->second.begin());
    out.emplace_back(hand_out(self, t, worker));
  }
  if (q != st.ready.end() && q->second.empty())
    st.ready.erase(q);
  return out;
}

void serve_polls(task_broker_ptr self, const std::string& queue) {
  auto& st = self->state;
  auto p = st.polls.find(queue);
  while (p != st.polls.end() && !p->second.empty() && st.ready.count(queue) > 0) {
    auto poll = std::move(p->second.front());
    p->second.pop_front();
    st.rt->stats.task_pollers.fetch_sub(1, std::memory_order_relaxed);
    poll.promise.deliver(take_tasks(self, queue, poll.poll.max, poll.poll.worker));
  }
  if (p != st.polls.end() && p->second.empty())
    st.polls.erase(p);
}

void unready(task_broker_ptr self, const held_task& t) {
  auto& st = self->state;
  if (auto q = st.ready.find(t.queue); q != st.ready.end()) {
    q->second.erase({t.req.since, t.seq, t.key});
    if (q->second.empty())
      st.ready.erase(q);
  }
  count_ready(self, -1);
}

void drop_task(task_broker_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.tasks.find(id);
  if (i == st.tasks.end())
    return;
  leave_queue(self, i->second);
  st.tasks.erase(i);
}

void end_task(task_broker_ptr self, const std::string& id, outcome result,
              boost::json::object data) {
  auto& st = self->state;
  auto i = st.tasks.find(id);
  if (i == st.tasks.end())
    return;
  auto& t = i->second;
  if (result.what == outcome::kind::done)
    st.details.erase(id);
  if (t.call) {
    for (auto& kv : data)
      t.call->context().data()[kv.key()] = kv.value();
    t.call->complete(std::move(result));
    drop_task(self, id);
    return;
  }
  leave_queue(self, t);
  t.report = answer_watch(t.req, watch_result{std::move(result), std::move(data), {}});
  t.reported_at = st.rt->clk->now();
  t.resend_gap = std::chrono::seconds(1);
  t.resend_at = t.reported_at + t.resend_gap;
  caf::anon_send(t.req.reply_to, watch_done_atom::value, *t.report);
  wake_at(self, t.resend_at, t.key);
}

void resend_report(task_broker_ptr self, held_task& t) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  if (now - t.reported_at > std::chrono::hours(1)) {
    // Its operation is gone from this process (another took it): its
    // owner's broker has the task.
    st.tasks.erase(t.key);
    return;
  }
  caf::anon_send(t.req.reply_to, watch_done_atom::value, *t.report);
  t.resend_gap = std::min<duration>(t.resend_gap * 2, std::chrono::seconds(30));
  t.resend_at = now + t.resend_gap;
  wake_at(self, t.resend_at, t.key);
}

void wake_at(task_broker_ptr self, time_point at, std::string what) {
  auto& st = self->state;
  st.due.emplace(at, std::move(what));
  if (st.armed && *st.armed <= at)
    return;
  st.armed = at;
  st.rt->clk->send_at(at, self, task_tick_atom::value, ++st.timer_gen);
}

} // namespace stepwise
