// Child operations in the dispatcher: it creates the children a step asked
// for (ordinary creates, answered together in one message); it counts the
// ends of a waiting parent's children and wakes the parent once enough
// ended; and it cancels the children of a canceled parent.
//
// Why the dispatcher counts and the parent reads: a parent waiting for ten
// thousand children must not be woken ten thousand times. While it waits,
// the dispatcher counts its children's ends (it sees every end, in
// `on_finished`) and wakes it once the count reaches what the parent said
// it needs; the parent then reads its children from the store and judges.
// The watch opens before the list is read, and the dispatcher asks for the
// list itself: a child that ended before the watch opened has its end
// durable before the list is read, so no end is missed; one counted twice
// only wakes the parent early, and it reads and judges again.
#include <algorithm>
#include <unordered_set>

#include <caf/send.hpp>

#include "actors/dispatcher.hpp"
#include "engine/errc.hpp"
#include "engine/log.hpp"

namespace stepwise {

/// The creates of one step's children and their answers.
struct child_batch {
  children_started_receiver reply_to;
  children_started answer;
  size_t left = 0;
};

void fill_child(child_batch& batch, size_t slot, std::string id, caf::error err) {
  auto& c = batch.answer.children[slot];
  c.id = std::move(id);
  c.err = std::move(err);
  if (--batch.left == 0)
    caf::anon_send(batch.reply_to, std::move(batch.answer));
}

bool create_answer::takes_replay() {
  if (!batch_)
    return false;
  // The parent reads its children to find the ids of these: one read for
  // all of them, rather than one per child.
  batch_->answer.children[slot_].replayed = true;
  fill_child(*batch_, slot_, {}, caf::error{});
  return true;
}

void on_start_children(dispatcher_ptr self, children_start& req) {
  auto batch = std::make_shared<child_batch>();
  batch->reply_to = std::move(req.reply_to);
  batch->answer.seq = req.seq;
  batch->answer.children.resize(req.starts.size());
  batch->left = req.starts.size();
  if (req.starts.empty()) {
    caf::anon_send(batch->reply_to, std::move(batch->answer));
    return;
  }
  for (size_t i = 0; i < req.starts.size(); ++i) {
    auto& [key, start] = req.starts[i];
    batch->answer.children[i].key = key;
    create_answer answer{batch, i};
    if (auto err = begin_create(self, start, answer))
      answer.deliver(std::move(err));
  }
}

namespace {

/// Enough of the parent's children ended: it looks at them again. A
/// sleeping parent is woken (its wait reads them as it resumes).
void nudge(dispatcher_ptr self, const std::string& parent) {
  auto& st = self->state;
  auto i = st.child_watches.find(parent);
  if (i == st.child_watches.end())
    return;
  auto seq = i->second.seq;
  st.child_watches.erase(i);
  if (st.sleepers.contains(parent)) {
    wake(self, parent);
    return;
  }
  route(
    self, parent, [=](const operation_actor& a) { self->send(a, children_nudge_atom::value, seq); },
    [] {});
}

bool due(const child_watch& w) {
  return w.seen >= w.need;
}

/// Cancels child `id`, waking it first if it sleeps. Nobody waits for the
/// answer: a child that ended meanwhile refuses, and that is all.
void cancel_child(dispatcher_ptr self, const std::string& id) {
  auto forward = [](const operation_actor& a) {
    caf::anon_send(a, command_atom::value, command::cancel);
  };
  route(self, id, forward, [=] {
    if (!self->state.sleepers.contains(id))
      return; // ended, or driven by another process
    wake(self, id);
    route(self, id, forward, [] {});
  });
}

/// Lists the children of `parent` (canceled) to cancel them, but for those
/// of the steps in `abandoned`.
void cancel_children(dispatcher_ptr self, const operation& parent) {
  auto& st = self->state;
  std::vector<std::string> abandoned;
  if (auto wf = st.rt->workflows.find(parent.workflow, parent.workflow_version))
    for (auto& def : wf->steps())
      if (def.children_on_cancel == child_policy::abandon)
        abandoned.push_back(def.name);
  st.child_cancels[parent.id] = std::move(abandoned);
  self->send(st.rt->reader(), children_atom::value, parent.id, uint64_t{0},
             children_read_receiver{self});
}

} // namespace

void on_children_watch(dispatcher_ptr self, const std::string& parent, children_watch& w) {
  auto& st = self->state;
  auto& watch = st.child_watches[parent];
  watch = child_watch{};
  watch.seq = w.seq;
  watch.of_step = w.of_step;
  self->send(st.rt->reader(), children_atom::value, parent, w.seq, std::move(w.reply_to));
}

void on_children_arm(dispatcher_ptr self, const std::string& parent, uint64_t seq, uint64_t need,
                     bool fail_fast) {
  auto& st = self->state;
  auto i = st.child_watches.find(parent);
  if (i == st.child_watches.end() || i->second.seq != seq)
    return;
  i->second.need = need;
  i->second.fail_fast = fail_fast;
  if (due(i->second))
    nudge(self, parent);
}

void on_children_unwatch(dispatcher_ptr self, const std::string& parent) {
  self->state.child_watches.erase(parent);
}

void on_children_listed(dispatcher_ptr self, children_read& read) {
  auto& st = self->state;
  auto i = st.child_cancels.find(read.parent_id);
  if (i == st.child_cancels.end())
    return;
  auto abandoned = std::move(i->second);
  st.child_cancels.erase(i);
  if (read.err) {
    write_log(st.rt->cfg.log, log_level::warn,
              "operation " + read.parent_id
                + " was canceled, but its children could not be listed to cancel them: "
                + message_of(read.err));
    return;
  }
  for (auto& c : read.children)
    if (!is_terminal(c.state)
        && std::find(abandoned.begin(), abandoned.end(), c.step) == abandoned.end())
      cancel_child(self, c.id);
}

void on_ended_for_children(dispatcher_ptr self, const operation& snap) {
  auto& st = self->state;
  if (!is_terminal(snap.state))
    return;
  st.child_watches.erase(snap.id);
  if (snap.state == op_state::canceled)
    cancel_children(self, snap);
  if (snap.parent_id.empty())
    return;
  auto i = st.child_watches.find(snap.parent_id);
  if (i == st.child_watches.end())
    return;
  auto& w = i->second;
  if (!w.of_step.empty()) {
    auto slot = parse_child_key(snap.idempotency_key);
    if (!slot || slot->step != w.of_step)
      return;
  }
  w.seen += 1;
  if (due(w) || (w.fail_fast && snap.state != op_state::succeeded))
    nudge(self, snap.parent_id);
}

void check_parents(dispatcher_ptr self, const std::vector<operation>& found) {
  std::unordered_set<std::string> parents;
  for (auto& op : found)
    if (!op.parent_id.empty())
      parents.insert(op.parent_id);
  // One read per parent, not per child: a fan-out has few parents. A read
  // that fails leaves the children running, as an abandon would.
  for (auto& parent : parents)
    self->request(self->state.rt->reader(), caf::infinite, load_atom::value, parent)
      .then(
        [=](maybe_op& res) {
          if (res.value && res.value->state == op_state::canceled)
            cancel_children(self, *res.value);
        },
        [=](caf::error& err) {
          write_log(self->state.rt->cfg.log, log_level::warn,
                    "recovery: cannot read operation " + parent
                      + " to see whether its children must be canceled: " + message_of(err));
        });
}

} // namespace stepwise
