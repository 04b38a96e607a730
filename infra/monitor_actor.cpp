// The monitor actor (see monitor.hpp): one per driver, owning every task
// that operations of this process wait on.
#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/wait.hpp"
#include "infra/monitor.hpp"
#include "infra/task_json.hpp"

namespace stepwise::infra {

namespace {

/// A poll's answer, as a message to the monitor.
struct poll_answer {
  std::string operation_id;
  uint64_t seq = 0;
  result<task> answer;
};

} // namespace

} // namespace stepwise::infra

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::infra::poll_answer)

namespace stepwise::infra {

namespace {

using tick_atom = caf::atom_constant<caf::atom("mon_tick")>;

/// One followed task.
struct followed {
  watch_request req;
  accepted ids;
  deployment_location loc;
  std::string outputs_key;
  /// Polls made (or scheduled before a restart): the next backoff's index.
  int32_t polls = 0;
  time_point next;
  /// Tells this entry's answers from those of a replaced one.
  uint64_t seq = 0;
  bool in_flight = false;
};

struct monitor_state {
  static inline const char* name = "stepwise.monitor";

  std::shared_ptr<driver> drv;
  std::shared_ptr<stepwise::clock> clk;
  monitor_options opts;
  std::shared_ptr<monitor_stats> stats;
  std::unordered_map<std::string, followed> tasks;
  /// Due polls by time; an entry whose task moved on is skipped.
  std::multimap<time_point, std::string> due;
  /// Times of the polls of the last second (the cap on polls per second).
  std::deque<time_point> recent;
  std::optional<time_point> armed;
  uint64_t timer_gen = 0;
  uint64_t next_seq = 0;
};

/// A watcher, and its own timer and poll answers.
using monitor_actor =
  watcher_actor::extend<caf::reacts_to<tick_atom, uint64_t>, caf::reacts_to<poll_answer>>;

using self_ptr = monitor_actor::stateful_pointer<monitor_state>;

void arm(self_ptr self) {
  auto& st = self->state;
  if (st.due.empty())
    return;
  auto at = st.due.begin()->first;
  auto cap = static_cast<size_t>(std::max(1, st.opts.max_polls_per_second));
  if (st.recent.size() >= cap)
    at = std::max(at, st.recent.front() + std::chrono::seconds(1));
  if (st.armed && *st.armed <= at)
    return;
  st.armed = at;
  st.clk->send_at(at, self, tick_atom::value, ++st.timer_gen);
}

void schedule(self_ptr self, followed& f, time_point at) {
  f.next = at;
  self->state.due.emplace(at, f.req.operation_id);
  arm(self);
}

void report(self_ptr self, const std::string& id, outcome result, boost::json::object data,
            std::vector<emitted_event> emitted) {
  auto& st = self->state;
  auto i = st.tasks.find(id);
  if (i == st.tasks.end())
    return;
  auto& req = i->second.req;
  caf::anon_send(
    req.reply_to, watch_done_atom::value,
    answer_watch(req, watch_result{std::move(result), std::move(data), std::move(emitted)}));
  st.tasks.erase(i);
  st.stats->reports.fetch_add(1, std::memory_order_relaxed);
  st.stats->watching.fetch_sub(1, std::memory_order_relaxed);
}

void give_up(self_ptr self, followed& f, const std::string& why) {
  auto id = f.req.operation_id;
  std::vector<emitted_event> ev{
    {event_type::infrastructure_task_completed,
     internal_error_event(f.ids.infrastructure_id, f.ids.request_id, why)}};
  report(self, id, fail("INTERNAL_ERROR: " + why), {}, std::move(ev));
}

void poll_again(self_ptr self, followed& f, const std::string& why) {
  auto& st = self->state;
  auto now = st.clk->now();
  auto end = f.req.since + st.opts.deadline;
  if (now >= end) {
    give_up(self, f, "monitor deadline exceeded (" + why + ")");
    return;
  }
  f.polls += 1;
  // The last poll happens at the deadline rather than after it.
  auto delay = std::min(monitor_backoff(st.opts, f.polls), end - now);
  schedule(self, f, now + std::max(delay, duration{std::chrono::milliseconds(1)}));
}

void on_answer(self_ptr self, poll_answer& ans) {
  auto& st = self->state;
  st.stats->in_flight.fetch_sub(1, std::memory_order_relaxed);
  auto i = st.tasks.find(ans.operation_id);
  if (i == st.tasks.end() || i->second.seq != ans.seq)
    return; // unwatched or replaced meanwhile
  auto& f = i->second;
  f.in_flight = false;
  if (auto err = std::get_if<error>(&ans.answer)) {
    auto why = std::string(to_string(err->kind)) + ": " + err->message;
    if (err->kind == error_kind::temporary || err->kind == error_kind::unreachable_location)
      poll_again(self, f, why);
    else
      give_up(self, f, why);
    return;
  }
  auto& t = std::get<task>(ans.answer);
  switch (t.status) {
    case task_status::complete: {
      boost::json::object data;
      if (!f.outputs_key.empty())
        data[f.outputs_key] = t.outputs;
      std::vector<emitted_event> ev{{event_type::infrastructure_task_completed, task_event(t)}};
      report(self, ans.operation_id, done(), std::move(data), std::move(ev));
      return;
    }
    case task_status::failed: {
      if (!t.failure)
        t.failure =
          failure_details{failure_code::internal_error, "the task failed without details"};
      auto msg = std::string(to_string(t.failure->code)) + ": " + t.failure->description;
      std::vector<emitted_event> ev{{event_type::infrastructure_task_completed, task_event(t)}};
      report(self, ans.operation_id, fail(std::move(msg)), {}, std::move(ev));
      return;
    }
    case task_status::in_progress:
      poll_again(self, f, "task " + f.ids.request_id + " is IN_PROGRESS");
      return;
  }
}

void poll(self_ptr self, followed& f, time_point now) {
  auto& st = self->state;
  f.in_flight = true;
  f.seq = ++st.next_seq;
  st.recent.push_back(now);
  st.stats->polls.fetch_add(1, std::memory_order_relaxed);
  st.stats->in_flight.fetch_add(1, std::memory_order_relaxed);
  auto me = monitor_actor{self};
  st.drv->get_task(f.ids.infrastructure_id, f.ids.request_id, f.loc,
                   [me, id = f.req.operation_id, seq = f.seq](result<task> r) {
                     caf::anon_send(me, poll_answer{id, seq, std::move(r)});
                   });
}

void on_tick(self_ptr self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.timer_gen)
    return;
  st.armed.reset();
  auto now = st.clk->now();
  while (!st.recent.empty() && st.recent.front() + std::chrono::seconds(1) <= now)
    st.recent.pop_front();
  auto cap = static_cast<size_t>(std::max(1, st.opts.max_polls_per_second));
  while (!st.due.empty() && st.due.begin()->first <= now && st.recent.size() < cap) {
    auto [at, id] = *st.due.begin();
    st.due.erase(st.due.begin());
    auto i = st.tasks.find(id);
    if (i == st.tasks.end() || i->second.in_flight || i->second.next != at)
      continue; // gone, or rescheduled
    poll(self, i->second, now);
  }
  arm(self);
}

void on_watch(self_ptr self, watch_request& req) {
  auto& st = self->state;
  auto ids = ids_from_json(req.task);
  auto loc = location_from_json(req.task.if_contains("deployment_location"));
  followed f;
  f.req = std::move(req);
  auto id = f.req.operation_id;
  auto [it, fresh] = st.tasks.insert_or_assign(id, std::move(f));
  if (fresh)
    st.stats->watching.fetch_add(1, std::memory_order_relaxed);
  auto& e = it->second;
  e.seq = ++st.next_seq;
  if (!ids || !loc) {
    report(self, id,
           fail("INTERNAL_ERROR: the task cannot be monitored: it lacks ids or a "
                "deployment location"),
           {}, {});
    return;
  }
  e.ids = *ids;
  e.loc = std::move(*loc);
  if (auto key = e.req.task.if_contains("outputs_key"); key != nullptr && key->is_string())
    e.outputs_key = std::string{key->get_string()};
  // Polls resume the schedule counted from the start of the wait (after a
  // restart, too), beginning with one at once.
  auto now = st.clk->now();
  auto at = e.req.since;
  while (e.polls < 10000) {
    auto next = at + monitor_backoff(st.opts, e.polls + 1);
    if (next > now)
      break;
    at = next;
    e.polls += 1;
  }
  schedule(self, e, now);
}

monitor_actor::behavior_type follow_tasks(self_ptr self, std::shared_ptr<driver> drv,
                                          std::shared_ptr<stepwise::clock> clk,
                                          monitor_options opts,
                                          std::shared_ptr<monitor_stats> stats) {
  auto& st = self->state;
  st.drv = std::move(drv);
  st.clk = std::move(clk);
  st.opts = opts;
  st.stats = stats ? std::move(stats) : std::make_shared<monitor_stats>();
  return {
    [=](watch_atom, watch_request& req) { on_watch(self, req); },
    [=](unwatch_atom, const std::string& id, int32_t attempt) {
      auto& st = self->state;
      auto i = st.tasks.find(id);
      if (i == st.tasks.end() || i->second.req.attempt > attempt)
        return;
      st.tasks.erase(i);
      st.stats->watching.fetch_sub(1, std::memory_order_relaxed);
    },
    [=](tick_atom, uint64_t gen) { on_tick(self, gen); },
    [=](poll_answer& ans) { on_answer(self, ans); },
  };
}

} // namespace

watcher_actor spawn_monitor(caf::actor_system& sys, std::shared_ptr<driver> drv,
                            std::shared_ptr<stepwise::clock> clk, monitor_options opts,
                            std::shared_ptr<monitor_stats> stats) {
  return sys.spawn<caf::hidden>(follow_tasks, std::move(drv), std::move(clk), opts,
                                std::move(stats));
}

} // namespace stepwise::infra
