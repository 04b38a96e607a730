// Child operations in the operation actor. The children a step asked for
// are started before its result is written: a step run again after a crash
// asks for the same slots and finds them (their idempotency keys), so it
// never makes a second child. A children wait holds no thread and no actor:
// the dispatcher counts the children's ends and wakes the operation once
// enough ended; the operation then reads them from the store and judges.
#include <algorithm>
#include <unordered_map>

#include "actors/messages.hpp"
#include "actors/operation_parts.hpp"
#include "engine/errc.hpp"

namespace stepwise::op {

namespace {

/// Returns whether a child's create failed for a reason that passes (the
/// store, a shutdown): the step is retried rather than failed.
bool passing(const caf::error& err) {
  auto code = code_of(err);
  return code == errc::store_failure || code == errc::shutting_down || code == errc::overloaded
         || code == errc::timeout;
}

/// Writes the step's result now that its children exist (`result` done),
/// or that they could not all be started (`result` a retry or a failure:
/// those started stay, and the step run again finds them).
void write_started(self_ptr self, outcome result) {
  auto& st = self->state;
  auto p = std::move(*st.kids.start);
  st.kids.start.reset();
  st.commit.preparing = false;
  auto& step = st.op.steps[p.step].name;
  if (result.what == outcome::kind::done)
    progress::note_children(st.op, step, p.ids);
  auto now = std::max(st.rt->clk->now(), p.now);
  auto act = progress::apply_result(st.op, *st.wf, p.step, result, false, p.took, now,
                                    unit_random(st), p.events);
  persist(self, std::move(p.events), act);
  st.work.settle(); // the attempt's result is queued (see on_step_done)
}

/// Looks at the children of the wait in hand: the dispatcher opens its
/// watch and has a reader list them (see dispatcher_children.cpp).
void look(self_ptr self) {
  auto& st = self->state;
  auto* w = progress::awaiting_children(st.op, *st.wf);
  if (!w)
    return;
  st.kids.reading = true;
  st.kids.wait_seq = ++st.kids.seq;
  self->send(st.rt->children, children_watch_atom::value, st.op.id,
             children_watch{st.kids.wait_seq, w->of_step, children_read_receiver{self}});
}

/// Returns whether the children wait in hand is still the operation's.
bool waiting_here(const operation_state& st) {
  auto idx = st.op.cursor();
  return progress::awaiting_children(st.op, *st.wf) && idx == st.kids.wait_step
         && st.op.steps[idx].attempts == st.kids.wait_attempt;
}

/// Arms the timeout of the wait in hand, once: the actor keeps waiting.
void arm_timeout(self_ptr self) {
  auto& st = self->state;
  if (st.kids.wait_due == time_point::max() || st.kids.timeout_armed)
    return;
  st.kids.timeout_armed = true;
  arm(self, st.kids.wait_due, timer_atom::value, st.work.generation());
}

/// Waits for the dispatcher's nudge without an actor, or, when the wait's
/// timeout is near (or transient values would be lost), with one.
void park(self_ptr self) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  auto due = st.kids.wait_due;
  // A store shared with other processes: a child may end in another one,
  // whose dispatcher does not count it here. Look again now and then.
  auto look_at = st.rt->lease ? now + st.rt->cfg.children_poll : time_point::max();
  auto until = std::min(due, look_at);
  bool far = until == time_point::max() || until - now >= st.rt->cfg.passivate_after;
  if (far && may_drop_transient(st) && passivate(self, until))
    return;
  arm_timeout(self);
  if (look_at != time_point::max())
    st.rt->clk->send_at(look_at, self, children_nudge_atom::value, st.kids.wait_seq);
}

/// The list of the children the wait in hand asked for.
void judge_read(self_ptr self, children_read& read) {
  auto& st = self->state;
  if (read.seq != st.kids.wait_seq || !st.kids.reading)
    return;
  st.kids.reading = false;
  if (!waiting_here(st))
    return; // it left the wait meanwhile (a cancel, a pause)
  auto now = st.rt->clk->now();
  if (read.err) {
    // The store did not answer: look again in a second (the wait's timeout
    // still applies meanwhile).
    arm_timeout(self);
    st.rt->clk->send_at(now + std::chrono::seconds(1), self, children_nudge_atom::value,
                        st.kids.wait_seq);
    return;
  }
  auto& w = *progress::awaiting_children(st.op, *st.wf);
  auto watched = watched_children(w, st.op, std::move(read.children));
  auto verdict = judge(w, watched);
  if (verdict.what != children_verdict::kind::waiting) {
    std::vector<event> events;
    auto act =
      progress::end_children_wait(st.op, *st.wf, watched, verdict, now, unit_random(st), events);
    persist(self, std::move(events), act);
    return;
  }
  self->send(st.rt->children, children_arm_atom::value, st.op.id, st.kids.wait_seq,
             static_cast<uint64_t>(verdict.need), !w.accept_failures);
  park(self);
}

/// The list of the children whose slots a step's run again found taken:
/// their ids.
void take_replayed(self_ptr self, children_read& read) {
  auto& st = self->state;
  auto& p = *st.kids.start;
  if (read.err) {
    write_started(self, retry_after(duration{0}, "reading the children started before: "
                                                   + message_of(read.err)));
    return;
  }
  auto& step = st.op.steps[p.step].name;
  auto run = st.op.steps[p.step].run;
  // By key: a step run again after a crash may find thousands taken.
  std::unordered_map<std::string, std::string> ids;
  for (auto& c : read.children)
    if (c.step == step && c.run == run)
      ids.emplace(std::move(c.key), std::move(c.id));
  for (auto& key : p.replayed) {
    auto found = ids.find(key);
    if (found == ids.end()) {
      write_started(self, fail("child '" + key + "': its slot's idempotency key ("
                               + child_key(st.op.id, step, key, run)
                               + ") is taken by an operation that is not a child of this one"));
      return;
    }
    p.ids.emplace_back(key, std::move(found->second));
  }
  write_started(self, done());
}

} // namespace

void start_children(self_ptr self, step_result& r, time_point now, std::vector<event> events) {
  auto& st = self->state;
  auto idx = st.op.cursor();
  auto& step = st.op.steps[idx].name;
  auto run = st.op.steps[idx].run;
  children_start req;
  req.parent_id = st.op.id;
  req.seq = ++st.kids.seq;
  req.reply_to = children_started_receiver{self};
  req.starts.reserve(r.children.size());
  for (auto& c : r.children) {
    start_request s;
    s.workflow = std::move(c.workflow);
    s.version = c.version;
    s.input = std::move(c.input);
    s.idempotency_key = child_key(st.op.id, step, c.key, run);
    s.parent_id = st.op.id;
    s.by = "parent:" + st.op.id;
    req.starts.emplace_back(std::move(c.key), std::move(s));
  }
  children_upkeep::starting p;
  p.seq = req.seq;
  p.step = idx;
  p.result = std::move(r.result);
  p.took = r.took;
  p.now = now;
  p.events = std::move(events);
  st.kids.start = std::move(p);
  st.commit.preparing = true;
  self->send(st.dispatcher, start_children_atom::value, std::move(req));
}

void on_children_started(self_ptr self, children_started& msg) {
  auto& st = self->state;
  if (!st.kids.start || st.kids.start->seq != msg.seq)
    return;
  auto& p = *st.kids.start;
  for (auto& c : msg.children) {
    if (c.err) {
      auto why = "child '" + c.key + "': " + message_of(c.err);
      write_started(self, passing(c.err) ? retry_after(duration{0}, std::move(why))
                                         : fail(std::move(why)));
      return;
    }
    if (c.replayed)
      p.replayed.push_back(std::move(c.key));
    else
      p.ids.emplace_back(std::move(c.key), std::move(c.id));
  }
  if (p.replayed.empty()) {
    write_started(self, done());
    return;
  }
  p.seq = ++st.kids.seq;
  self->send(st.rt->reader(), children_atom::value, st.op.id, p.seq, children_read_receiver{self});
}

void on_children_read(self_ptr self, children_read& read) {
  auto& st = self->state;
  if (st.kids.start && st.kids.start->seq == read.seq) {
    take_replayed(self, read);
    return;
  }
  when_idle(self, [=]() mutable { judge_read(self, read); });
}

void on_children_nudge(self_ptr self, uint64_t seq) {
  when_idle(self, [=] {
    auto& st = self->state;
    if (seq == st.kids.wait_seq && !st.kids.reading && waiting_here(st))
      look(self);
  });
}

void await_children(self_ptr self, const next_action& act) {
  auto& st = self->state;
  st.kids.wait_step = act.step;
  st.kids.wait_attempt = act.attempt;
  st.kids.wait_due = act.due;
  st.kids.timeout_armed = false;
  look(self);
}

void leave_children_wait(self_ptr self) {
  auto& st = self->state;
  if (!st.commit.durable || !progress::awaiting_children(*st.commit.durable, *st.wf))
    return;
  auto idx = st.commit.durable->cursor();
  if (progress::awaiting_children(st.op, *st.wf) && st.op.cursor() == idx
      && st.op.steps[idx].attempts == st.commit.durable->steps[idx].attempts)
    return;
  // A look under way no longer holds the actor: its answer is dropped.
  st.kids.wait_step = SIZE_MAX;
  st.kids.reading = false;
  self->send(st.rt->children, children_unwatch_atom::value, st.op.id);
}

} // namespace stepwise::op
